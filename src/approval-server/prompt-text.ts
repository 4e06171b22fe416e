// A prompt in plain words for a terminal (`gatehouse serve --prompt tty`): what will run (or which
// file an agent's tool reads or writes, and where it lies; or which other tool an agent calls and what
// it does), where, for whom, why a person is asked, and what happens when nobody answers.
import { fileAccessOf, whereText } from "../core/policy/file-edit.js";
import { toolCallOf } from "../core/policy/tool-call-explain.js";
import type { CommandInput, PromptRequest } from "../core/policy/types.js";

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

function quoteWord(word: string): string {
  if (word === "") return "''";
  return SAFE_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function commandText(command: CommandInput): string {
  return command.argv ? command.argv.map(quoteWord).join(" ") : (command.command ?? "");
}

/** Whether *allow always* is offered (hidden under ask=always, exec-policy.md "Deciding"). */
export function offersAllowAlways(prompt: PromptRequest): boolean {
  const e = prompt.explanation as { ask: string; allowAlwaysAvailable?: boolean };
  return e.ask !== "always" && e.allowAlwaysAvailable !== false;
}

/** The lines that say what is asked: the command, or the file access with each path and where it lies. */
function whatLines(prompt: PromptRequest): string[] {
  const call = toolCallOf(prompt.explanation);
  if (call) {
    const runtime = call.runtime === "claude" ? "Claude Code" : "Codex";
    return [
      `  tool     ${call.tool} (${runtime}${call.kind === "mcp" ? ", an MCP tool" : ""}): it ${call.what}`,
      ...(call.input !== undefined ? [`  input    ${call.input}`] : []),
      ...(call.reason !== undefined ? [`  unclear  ${call.reason}`] : []),
      `  folder   ${call.workdir} (the task's folder)`,
    ];
  }
  const file = fileAccessOf(prompt.explanation);
  if (!file) return [`  command  ${commandText(prompt.command)}`, `  cwd      ${prompt.cwd}`];
  return [
    `  ${file.access === "write" ? "write" : "read "}    ${file.tool} (an agent's own file tool)`,
    ...file.paths.map((p) => `  file     ${p.path}  (${whereText(p)})`),
    `  folder   ${file.workdir} (the task's folder)`,
  ];
}

export function renderPromptText(
  prompt: PromptRequest,
  now: number,
  position?: { index: number; of: number },
): string {
  const e = prompt.explanation;
  const seconds = Math.max(0, Math.round((prompt.expiresAt - now) / 1000));
  const counter = position && position.of > 1 ? ` (${position.index} of ${position.of})` : "";
  const lines = [
    `Gatehouse: approval needed${counter}`,
    ...whatLines(prompt),
    prompt.verified
      ? `  task     ${prompt.verified.taskId} (verified: Gatehouse launched it)   agent ${prompt.agentId}   from ${prompt.source}`
      : `  agent    ${prompt.agentId}   session ${prompt.sessionKey}   from ${prompt.source}   (as its client says; not verified${prompt.explanation.identity === "unproven" ? ", so decided as the least-trusted agent" : ""})`,
  ];
  if (prompt.reason) lines.push(`  reason   ${prompt.reason}`);
  lines.push(`  why      ${e.reason}`);
  for (const segment of e.segments ?? []) {
    if (segment.wrapper) continue;
    const exe = segment.resolvedPath ?? `${segment.executable} (${segment.resolveError ?? "not resolved"})`;
    const rule = segment.matchedEntryId
      ? `allowed by entry ${segment.matchedEntryId}`
      : `not covered${segment.missReason ? `: ${segment.missReason}` : ""}`;
    lines.push(`    - ${segment.argv.map(quoteWord).join(" ")}  →  ${exe}, ${rule}`);
  }
  for (const flag of e.flagDetails ?? []) lines.push(`    ! ${flag.detail}`);
  if (offersAllowAlways(prompt) && (e.proposedEntries ?? []).length > 0) {
    lines.push(
      `  allow always would save${e.identity === "unproven" ? " for every agent" : ""}: ${e.proposedEntries.map((p) => p.pattern + (p.argPattern ? ` ${p.argPattern}` : "")).join(", ")}`,
    );
  }
  lines.push(`  in ${seconds} s without an answer, askFallback=${e.askFallback} decides`);
  return lines.join("\n");
}

export function choicesText(prompt: PromptRequest): string {
  return offersAllowAlways(prompt)
    ? "[o] allow once  [a] allow always  [d] deny > "
    : "[o] allow once  [d] deny > ";
}
