// What could go badly wrong if a person allowed this request (issue 16 "Risk first"): read from what the
// policy already found (segments with their real executables, flags, askFallback, file locations), so the
// dialog, the tray and notifications lead with the danger instead of hiding it below the fold. This does
// not decide anything: the gate's outcome stays the policy's; risks only shape how a prompt is shown.
import path from "node:path";
import { patternExecutableName } from "../approvals/index.js";
import {
  privilegedCommand,
  recursiveDeleteTargets,
  type DeleteTarget,
  type TargetContext,
} from "./delete-targets.js";
import type { FileAccessView } from "./file-edit.js";
import { SHELLS } from "./tool-shells.js";
import type { Risk } from "../../shared/schemas/prompt.js";
import type { CommandInput, Explanation, Segment } from "./types.js";
import { inlineDeletion, installs, remoteHarm } from "./risk-commands.js";

export type { Risk } from "../../shared/schemas/prompt.js";

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "xh"]);
const CODE_RUNNERS = new Set([
  ...SHELLS,
  "python",
  "python3",
  "node",
  "deno",
  "bun",
  "perl",
  "ruby",
  "php",
  "pwsh",
  "powershell",
]);
const PRIVILEGE = new Set(["sudo", "doas", "su", "pkexec", "runas", "gsudo", "run0"]);
const ALWAYS_DESTRUCTIVE = new Set(["shred", "wipefs", "mkfs", "fdisk", "sfdisk", "parted", "diskutil"]);

/** The name a segment is written with (`sh`), which the person reads. */
function nameOf(segment: Segment): string {
  return patternExecutableName(segment.executable);
}

/** Whether the segment runs one of `names`, as written or as its real executable (`sh` → `dash`). */
function runs(segment: Segment, names: ReadonlySet<string>): boolean {
  return (
    names.has(nameOf(segment)) ||
    (segment.resolvedPath !== null && names.has(patternExecutableName(segment.resolvedPath)))
  );
}

/** The command's words as the person reads them in the banner (a very long one cut in the middle). */
function said(argv: readonly string[]): string {
  const text = argv.join(" ").replace(/\s+/g, " ");
  return text.length > 140 ? `${text.slice(0, 100)} … ${text.slice(-30)}` : text;
}

function words(segment: Segment): string {
  return segment.argv.length > 0 ? said(segment.argv) : segment.executable;
}

/** "a, b and c" (at most three named, then "and N more"). */
function listed(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  const shown = items.length > 3 ? [...items.slice(0, 2), `${items.length - 2} more`] : items;
  return `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
}

/** Short options cluster (`-rf`); long ones are whole words. */
function hasOption(args: readonly string[], short: string, long: readonly string[]): boolean {
  return args.some(
    (a) =>
      long.includes(a) || (a.startsWith("-") && !a.startsWith("--") && [...short].some((c) => a.includes(c))),
  );
}

/** What a command deletes, rewrites or erases, in the person's words, or null. */
function destructiveAs(name: string, argv: readonly string[], targets: DeleteTarget[] | null): string | null {
  const args = argv.slice(1);
  const cmd = said(argv);
  if (name === "rm" && targets !== null) return `deletes ${listed(targets.map((t) => t.words))}: ${cmd}`;
  if (name === "rm" && hasOption(args, "f", ["--force"])) return `deletes files without asking: ${cmd}`;
  if (name === "find" && targets !== null) return `deletes ${listed(targets.map((t) => t.words))}: ${cmd}`;
  if (ALWAYS_DESTRUCTIVE.has(name) || name.startsWith("mkfs.")) return `erases data: ${cmd}`;
  if (name === "dd" && args.some((a) => a.startsWith("of="))) return `overwrites a file or disk: ${cmd}`;
  if (name === "find" && (args.includes("-delete") || args.includes("-exec")) && deletesWithFind(args))
    return `deletes the files it finds: ${cmd}`;
  if (name === "git") {
    const sub = args.find((a) => !a.startsWith("-"));
    const rest = args.slice(args.indexOf(sub ?? "") + 1);
    if (
      sub === "push" &&
      (hasOption(rest, "f", ["--force", "--force-with-lease", "--mirror", "--delete"]) ||
        rest.some((a) => a.startsWith("+") || a.startsWith("--force")))
    )
      return `rewrites or deletes history on the remote: ${cmd}`;
    if (sub === "reset" && rest.includes("--hard")) return `throws away uncommitted work: ${cmd}`;
    if (sub === "clean" && hasOption(rest, "f", ["--force"])) return `deletes untracked files: ${cmd}`;
    if (sub === "checkout" && rest.includes("--") && rest.includes("."))
      return `throws away uncommitted work: ${cmd}`;
    if (sub === "branch" && hasOption(rest, "D", []))
      return `deletes a branch that may not be merged: ${cmd}`;
  }
  return null;
}

/** `find … -delete` or `find … -exec rm …`. */
function deletesWithFind(args: readonly string[]): boolean {
  return (
    args.includes("-delete") ||
    args.some((a, i) => (a === "-exec" || a === "-execdir") && args[i + 1] === "rm")
  );
}

/** A download and a program that runs code in one command (`curl … | sh`). */
function networkToShell(segments: readonly Segment[]): { downloader: Segment; runner: Segment } | null {
  const downloader = segments.find((s) => runs(s, DOWNLOADERS));
  const runner = segments.find((s) => runs(s, CODE_RUNNERS));
  return downloader && runner ? { downloader, runner } : null;
}

/** The segment's words are a shell's (`~` is the home), not an argv's (`~` is a name). */
function shellWords(command: CommandInput, segment: Segment): boolean {
  return command.command !== undefined || segment.context !== "top";
}

/** What a segment runs, by each name it runs as, and what a privilege wrapper in it runs (`sudo rm …`). */
function commandsOf(segment: Segment): Array<{ name: string; argv: readonly string[] }> {
  const names = [nameOf(segment)];
  if (segment.resolvedPath !== null) names.push(patternExecutableName(segment.resolvedPath));
  const out = names.map((name) => ({ name, argv: segment.argv }));
  for (const name of names) {
    const inner = privilegedCommand(name, segment.argv);
    if (inner && inner[0] !== undefined) out.push({ name: patternExecutableName(inner[0]), argv: inner });
  }
  return out;
}

/** The folder a segment runs in, or null when a `cd` before it makes that known only when it runs. */
function cwdOf(segment: Segment, cwd: string): string | null {
  if (segment.cwdUnknown) return null;
  return segment.chdir ? path.posix.resolve(cwd, segment.chdir) : cwd;
}

/**
 * Why a standing rule ("allow always") for this command would be unwise, in words that follow "it", or
 * null (issue 32): one wrong run cannot be undone and reaches far beyond the task (a recursive delete of
 * the whole computer, a system folder or a home folder; erasing a disk), or what runs is not known until
 * it arrives (a download run as code). Such a command is offered "allow once" only.
 */
export function standingRuleUnwise(
  command: CommandInput,
  segments: readonly Segment[],
  ctx: { home: string; cwd: string },
): string | null {
  for (const segment of segments) {
    const here: TargetContext = { home: ctx.home, cwd: cwdOf(segment, ctx.cwd) };
    for (const { name, argv } of commandsOf(segment)) {
      const wide = recursiveDeleteTargets(argv, name, here, shellWords(command, segment))?.find(
        (t) => t.wide,
      );
      if (wide) return `deletes ${wide.words}`;
      if (
        name === "wipefs" ||
        name.startsWith("mkfs") ||
        (name === "dd" && argv.some((a) => a.startsWith("of=/dev/")))
      )
        return "erases a disk";
    }
  }
  const pipe = networkToShell(segments);
  if (pipe)
    return `runs code downloaded with ${nameOf(pipe.downloader)}, which is not known until it arrives`;
  return null;
}

const FILE_RISK: Partial<Record<FileAccessView["paths"][number]["where"], Risk["level"]>> = {
  outside: "caution",
  "sensitive-inside": "danger",
  protected: "danger",
  "gatehouse-data": "danger",
  unresolved: "caution",
};

/** Every risk of a request, dangers first; empty when nothing stands out. `home`: what a shell's `~` names. */
export function assessRisks(
  explanation: Explanation,
  context: { home: string; fileAccess?: FileAccessView },
): Risk[] {
  const { fileAccess } = context;
  const risks: Risk[] = [];
  const segments = explanation.segments;
  for (const segment of segments) {
    const here: TargetContext = { home: context.home, cwd: cwdOf(segment, explanation.cwd) };
    const shell = shellWords(explanation.command, segment);
    // The first reading that says something: as written, as its real executable, under sudo.
    let harm: string | null = null;
    let remote: ReturnType<typeof remoteHarm> = null;
    let installing = false;
    let deleting: string | null = null;
    for (const { name, argv } of commandsOf(segment)) {
      const targets = recursiveDeleteTargets(argv, name, here, shell);
      harm ??= destructiveAs(name, argv, targets);
      remote ??= remoteHarm(name, argv);
      installing ||= installs(name, argv);
      const call = inlineDeletion(name, argv);
      deleting ??= call === null ? null : `runs ${name} code that deletes files (${call}): ${said(argv)}`;
    }
    if (harm) risks.push({ kind: "destructive", level: "danger", detail: harm });
    if (deleting) risks.push({ kind: "destructive", level: "danger", detail: deleting });
    if (remote)
      risks.push({ kind: remote.kind, level: "danger", detail: `${remote.what}: ${words(segment)}` });
    if (runs(segment, PRIVILEGE))
      risks.push({
        kind: "privilege",
        level: "danger",
        detail: `runs as another user (administrator): ${words(segment)}`,
      });
    if (installing)
      risks.push({
        kind: "installs",
        level: "caution",
        detail: `installs packages from the internet, and their own install scripts may run as you: ${words(segment)}`,
      });
  }
  const pipe = networkToShell(segments);
  if (pipe)
    risks.push({
      kind: "network-to-shell",
      level: "danger",
      detail: `downloads with ${nameOf(pipe.downloader)} and runs code with ${nameOf(pipe.runner)}: what runs is not known until it arrives`,
    });
  for (const flag of explanation.flagDetails) {
    if (flag.kind === "own-files")
      risks.push({
        kind: "own-files",
        level: "danger",
        detail: `touches Gatehouse's own policy and secrets: ${flag.detail}`,
      });
    else if (flag.kind === "protected-files" && !flag.coveredBy)
      risks.push({ kind: "outside-workdir", level: "danger", detail: `reads secrets: ${flag.detail}` });
  }
  for (const p of fileAccess?.paths ?? []) {
    const level = FILE_RISK[p.where];
    if (level)
      risks.push({
        kind: p.where === "gatehouse-data" ? "own-files" : "outside-workdir",
        level,
        detail: `${fileAccess?.access === "write" ? "changes" : "reads"} ${p.path}, ${p.where === "outside" || p.where === "unresolved" ? "outside the task's folder" : (p.detail ?? "a protected file")}`,
      });
  }
  if (explanation.askFallback === "full")
    risks.push({
      kind: "runs-if-unanswered",
      level: "danger",
      detail: "runs anyway if you don't answer in time",
    });
  // The time is the person's local time: the dialog writes it (`until`), main's clock zone may differ.
  if (explanation.elevatedUntil !== undefined)
    risks.push({
      kind: "elevated",
      level: "caution",
      detail: "elevated mode is on: this agent's other commands run without asking",
      until: explanation.elevatedUntil,
    });
  return [...risks.filter((r) => r.level === "danger"), ...risks.filter((r) => r.level !== "danger")];
}
