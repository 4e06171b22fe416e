// Plain words for the policy's vocabulary, times and sizes: what the screens show people.
import type { Ask, Explanation, FileAccessView, Security } from "../../src/ipc/contract.js";

export const SECURITY_WORDS: Record<Security, { label: string; help: string }> = {
  deny: { label: "Deny", help: "Never run commands." },
  allowlist: { label: "Allowlist", help: "Run only what the allowlist covers." },
  full: { label: "Full", help: "Run any command." },
};

export const ASK_WORDS: Record<Ask, { label: string; help: string }> = {
  off: { label: "Off", help: "Never ask; decide by the security setting alone." },
  "on-miss": { label: "On miss", help: "Ask me when the allowlist does not cover a command." },
  always: { label: "Always", help: "Ask me before every command." },
};

export const FALLBACK_WORDS: Record<Security, { label: string; help: string }> = {
  deny: { label: "Deny", help: "If nobody answers in time, the command is denied." },
  allowlist: {
    label: "Allowlist",
    help: "If nobody answers in time, the command runs only if the allowlist covers it.",
  },
  full: { label: "Full", help: "If nobody answers in time, the command runs anyway." },
};

export const FLAG_WORDS: Record<string, string> = {
  redirect: "writes output to a file",
  background: "keeps running in the background",
  eval: "evaluates text as shell code",
  source: "runs another script inside this shell",
  exec: "replaces the shell with another program",
  "function-definition": "defines a shell function",
  "dynamic-command": "works out which program to run only when it runs",
  "dangerous-assignment": "changes how programs are found or loaded",
  "inline-code": "runs code written inline",
  "parse-error": "could not be understood",
  "too-deep": "nests shells inside shells too deeply to check",
  "complex-windows": "uses Windows shell features beyond a single command",
  expansion: "uses an expansion that could run code or is not analysed",
  "dynamic-argument": "passes a tool words known only when it runs",
  "tool-option": "uses an option that runs a program or writes a file",
  "own-files": "reads or changes Gatehouse's own files (its policy and secrets)",
  "protected-files": "reads credentials, an agent's settings or another program's memory",
  "unknown-file": "opens a file that is known only when it runs",
};

export const SOURCE_WORDS: Record<string, string> = {
  backend: "Backend task",
  "claude-hook": "Claude Code hook",
  "codex-hook": "Codex hook",
  cli: "Command line",
  socket: "Local client",
};

export function sourceWords(source: string): string {
  return SOURCE_WORDS[source] ?? source;
}

/** The agent CLI Gatehouse launched for a task. */
export function runtimeWords(runtime: "claude-code" | "codex"): string {
  return runtime === "codex" ? "Codex" : "Claude Code";
}

/** Why a command was asked about, denied or allowed, in a sentence. */
export function reasonWords(explanation: Pick<Explanation, "reason" | "outcome" | "flags">): string {
  const r = explanation.reason;
  if (r === "security=deny") return "Commands are not allowed to run (security is set to deny).";
  if (r === "ask=always") return "You asked to approve every command.";
  if (r === "security=full") return "Any command may run (security is set to full).";
  if (r === "allowlist") return "Every part of the command is on the allowlist.";
  if (r === "approvals-file-invalid")
    return "The approvals file is invalid, so every command is denied until it is fixed.";
  if (r === "inside-workdir") return "The file is inside the task's folder.";
  if (r.startsWith("outside-workdir"))
    return "An agent's own file tool wants a file outside the task's folder (or where files run code later).";
  if (r.startsWith("gatehouse-data")) return "Agents never read or change Gatehouse's own data.";
  if (r.startsWith("needs-a-person: "))
    return `Gatehouse does not fully understand this tool call: ${r.slice("needs-a-person: ".length)}.`;
  if (r.startsWith("allowlist-miss: no allowlist entry covers the MCP tool"))
    return "No allowlist entry covers this MCP tool.";
  if (r === "allowlist-miss") {
    return explanation.flags.length
      ? "Part of the command is not on the allowlist, or it does something that always needs a person."
      : "Part of the command is not on the allowlist.";
  }
  return r;
}

export const OUTCOME_WORDS: Record<Explanation["outcome"], string> = {
  run: "Runs without asking",
  prompt: "Asks you first",
  deny: "Denied",
};

export function fallbackOutcome(
  explanation: Pick<Explanation, "askFallback" | "allowlistSatisfied">,
): string {
  if (explanation.askFallback === "full") return "the command runs anyway";
  if (explanation.askFallback === "allowlist") {
    return explanation.allowlistSatisfied
      ? "the command runs (the allowlist covers it)"
      : "the command is denied (the allowlist does not cover it)";
  }
  return "the command is denied";
}

export function relativeTime(ts: number | null | undefined, now: number = Date.now()): string {
  if (ts === null || ts === undefined || !Number.isFinite(ts) || ts <= 0) return "never";
  const seconds = Math.round((now - ts) / 1000);
  const future = seconds < 0;
  const s = Math.abs(seconds);
  const text =
    s < 5
      ? "just now"
      : s < 60
        ? `${s} s`
        : s < 3600
          ? `${Math.round(s / 60)} min`
          : s < 86_400
            ? `${Math.round(s / 3600)} h`
            : `${Math.round(s / 86_400)} d`;
  if (text === "just now") return text;
  return future ? `in ${text}` : `${text} ago`;
}

export function clock(ts: number): string {
  const d = new Date(ts);
  return d.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/**
 * `clock` as its day and its time ("Nov 28, 2026" and "05:37:15 PM"), for a narrow column that may
 * put them on two lines but must not break either.
 */
export function clockParts(ts: number): { day: string; time: string } {
  const d = new Date(ts);
  return {
    day: d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }),
    time: d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" }),
  };
}

/** The time of day only, e.g. "10:13 PM" (for "until …" on the same day). */
export function timeOfDay(ts: number): string {
  return new Date(ts).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export function countdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const WHERE_WORDS: Record<FileAccessView["paths"][number]["where"], string> = {
  inside: "inside the task's folder",
  outside: "outside the task's folder",
  "sensitive-inside": "in the task's folder, where files make later commands run code",
  protected: "in a protected folder",
  unresolved: "a path that cannot be resolved safely",
  "gatehouse-data": "Gatehouse's own data",
};

/** Where one path of a file access lies, in words (with its detail, e.g. the protected folder's label). */
export function whereWords(path: FileAccessView["paths"][number]): string {
  return path.detail ? `${WHERE_WORDS[path.where]} (${path.detail})` : WHERE_WORDS[path.where];
}

/** `14 min 05 s` left: the elevated time that remains, to the second. */
export function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return minutes > 0 ? `${minutes} min ${String(seconds % 60).padStart(2, "0")} s` : `${seconds} s`;
}
