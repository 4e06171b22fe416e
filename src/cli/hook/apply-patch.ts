// The file gate's view of a Codex patch: the paths its operations touch, read by the port of Codex's own
// grammar (core/policy/apply-patch-grammar.ts), whether the patch comes from the apply_patch tool or
// from an exec_command that Codex intercepts and applies itself (`apply_patch <<'EOF' …`). A patch the
// port does not fully understand is never let through silently.
import path from "node:path";
import type { PatchOperation } from "../../core/policy/apply-patch-grammar.js";
import type { ToolCall } from "./tool-call.js";

// Loaded for a patch only: Claude Code's calls and Codex's other calls never pay for the grammar.
const grammar = () => import("../../core/policy/apply-patch-grammar.js");

/** Every path the operations write (a move writes its source and its destination), without repeats. */
export function patchPaths(operations: readonly PatchOperation[]): string[] {
  const paths = operations.flatMap((op) => (op.moveTo === undefined ? [op.path] : [op.path, op.moveTo]));
  return [...new Set(paths)];
}

function notUnderstood(reason: string, patch?: string): ToolCall {
  return {
    kind: "person",
    tool: "apply_patch",
    what: "writes files by a patch",
    ...(patch !== undefined ? { input: patch } : {}),
    reason: `Gatehouse cannot be sure it reads this patch the way Codex applies it: ${reason}. Written in the plain apply_patch format (one header per line, plain file names) it would be checked by itself`,
  };
}

/**
 * A patch as the file gate's write: its paths as written, taken by Codex from `base` (Codex's folder for
 * the patch; `resolve_path_against_base`, checked with the real binary: `link/../x` is `base/x` whatever
 * `link` points to).
 */
export async function patchFileCall(patch: string, base: string): Promise<ToolCall> {
  const reading = (await grammar()).readCodexPatch(patch);
  if (!reading.ok) return notUnderstood(reading.reason, patch);
  // The file gate takes each path as Codex opens it (core/workdir/runtime-path.ts: joined to `base`, `..`
  // collapsed as text, `~` a name).
  return {
    kind: "file",
    tool: "apply_patch",
    access: "write",
    paths: patchPaths(reading.operations),
    runtime: "codex",
    base,
  };
}

/** A folder given as `workdir` or to `cd`, read only when it is plain text with no `..` step. */
function plainFolder(value: unknown): string | null {
  if (typeof value !== "string" || value === "" || /[\p{C}\p{Z}]/u.test(value.replaceAll(" ", "x")))
    return null;
  return value.split(/[\\/]/).includes("..") ? null : value;
}

/**
 * An exec_command Codex applies as a patch instead of running it, as the file gate's write from the
 * command's folder (`workdir`, then `cd DIR`); null when Codex runs it as a command.
 */
export async function shellPatchCall(
  command: string,
  workdir: unknown,
  cwd: string,
): Promise<ToolCall | null> {
  // Only a command that mentions apply_patch can be one (a superset of the grammar's own test).
  if (!/apply_?patch/i.test(command)) return null;
  const shell = (await grammar()).readCodexShellPatch(command);
  if (shell.kind === "none") return null;
  if (shell.kind === "unsure") return notUnderstood(shell.reason);
  const folder = workdir === undefined || workdir === null ? "." : plainFolder(workdir);
  if (folder === null)
    return notUnderstood(`the command's folder (${JSON.stringify(workdir)}) is not a plain folder name`);
  return patchFileCall(shell.patch, path.resolve(cwd, folder, shell.cd ?? "."));
}
