// The web UI's file browser and editor on this device (Wegent executor/src/local/workspace_files.rs),
// answered natively for `device:execute_command` with a `workspace_*` command_key: list a folder, read
// a text file, read a chunk of any file, write a text file the person opened. Payload fields, results,
// limits, `sha256:` revisions and error strings follow Wegent; on top of them:
// - the folder must pass Gatehouse's own roots and protected folders (workdir.md §4) as well as the
//   backend's `WEGENT_WORKSPACE_ROOTS` (the device never trusts the backend's list alone; no roots from
//   the backend = nothing, as in Wegent);
// - every file is placed by the file gate's resolver (executor/file-access.ts): reads inside the folder,
//   writes only inside it and never where files make later commands run code (`.git`, `.claude`,
//   `.codex`), never in a protected folder or Gatehouse's own data;
// - every write, done or refused, is a line in the audit log.
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import type { Logger } from "../../core/log.js";
import type { Env } from "../../core/paths.js";
import type { WorkdirService } from "../../core/workdir/io/service.js";
import {
  isWithinComponents,
  pathApi,
  pathComponents,
  type CompareRule,
  type Platform,
} from "../../core/workdir/platform-path.js";
import { whereText } from "../../core/policy/file-edit.js";
import type { AuditLog } from "../audit-log.js";
import { resolveFileTargets, type FileGatePlaces } from "../file-access.js";
import { newRunId } from "../gate.js";
import {
  MAX_CHUNK_BYTES,
  MAX_TEXT_FILE_BYTES,
  MAX_TREE_ENTRIES,
  WORKSPACE_ROOTS_ENV,
  type WorkspaceCommandKey,
} from "../../core/workspace-files.js";
import { osErrorText } from "./os-error.js";

export interface WorkspaceCommand {
  /** One of WORKSPACE_COMMAND_KEYS; another is refused as Wegent refuses it. */
  commandKey: WorkspaceCommandKey | (string & {});
  /** The folder: the payload's `cwd`, else `path` (as Wegent reads it). */
  path: string | null;
  args: string[];
  /** The payload's `env`: the backend's `WEGENT_WORKSPACE_ROOTS` is read from here. */
  env: Record<string, string>;
  /** A write's new content (Wegent's app path passes it here; its socket path has none). */
  stdin: string | null;
}

export type WorkspaceOutcome = { ok: true; stdout: Record<string, unknown> } | { ok: false; error: string };

export interface WorkspaceFilesDeps {
  workdir: Pick<WorkdirService, "checkFolder">;
  /** Where the protected folders are (read per command: W may change). */
  places: () => FileGatePlaces;
  /** Gatehouse's own environment: its `WEGENT_WORKSPACE_ROOTS` counts when the payload has none (as in Wegent). */
  env: Env;
  audit?: AuditLog | null;
  logger: Logger;
  now?: () => number;
  platform?: Platform;
}

const OUTSIDE_ROOTS = "Workspace path is outside allowed workspace roots";

class Refusal extends Error {}
const refuse = (message: string): never => {
  throw new Refusal(message);
};

function compareRule(platform: Platform): CompareRule {
  return { caseInsensitive: platform === "win32", nfc: platform === "darwin" };
}

function within(child: string, parent: string, platform: Platform): boolean {
  return isWithinComponents(
    pathComponents(child, platform),
    pathComponents(parent, platform),
    compareRule(platform),
  );
}

/** RFC 3339 in UTC, as Wegent's executor writes `modified_at` (`+00:00`, not `Z`). */
export function modifiedAt(stats: Pick<Stats, "mtime">): string {
  return stats.mtime.toISOString().replace(/Z$/, "+00:00");
}

export function sha256Revision(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The backend's roots that exist here, as real paths (`:`-separated, `;` on Windows, as in Wegent). */
async function backendRoots(command: WorkspaceCommand, deps: WorkspaceFilesDeps): Promise<string[]> {
  const platform = deps.platform ?? process.platform;
  const given = command.env[WORKSPACE_ROOTS_ENV] ?? deps.env[WORKSPACE_ROOTS_ENV] ?? "";
  if (given.trim() === "") return [];
  const roots: string[] = [];
  for (const raw of given.split(platform === "win32" ? ";" : ":")) {
    const item = raw.trim();
    if (item === "" || !pathApi(platform).isAbsolute(item)) continue;
    // A root that does not exist here contains nothing (Wegent fails the whole command instead).
    const real = await fs.realpath(item).catch(() => null);
    if (real !== null) roots.push(real);
  }
  return roots;
}

/** The folder a command works in: inside Gatehouse's roots (and not protected), and inside the backend's. */
async function workspaceFolder(command: WorkspaceCommand, deps: WorkspaceFilesDeps): Promise<string> {
  const platform = deps.platform ?? process.platform;
  const given = command.path?.trim() ?? "";
  if (given === "") refuse("Workspace path is required");
  const checked = await deps.workdir.checkFolder(given, { create: false });
  if (!checked.ok) {
    if (checked.code === "missing-directory")
      refuse(`Invalid workspace path: ${osErrorText({ code: "ENOENT" })}`);
    if (checked.code === "not-a-directory") refuse("Workspace path is not a directory");
    if (checked.code === "unreadable") refuse(`Invalid workspace path: ${osErrorText({ code: "EACCES" })}`);
    refuse(`${OUTSIDE_ROOTS}. ${checked.message}`);
  }
  const folder = (checked as { cwd: string }).cwd;
  const roots = await backendRoots(command, deps);
  if (!roots.some((root) => within(folder, root, platform))) refuse(OUTSIDE_ROOTS);
  return folder;
}

/** A file of the folder, placed by the file gate's resolver: its real path once it may be read or written. */
async function workspaceFile(
  folder: string,
  name: string,
  access: "read" | "write",
  deps: WorkspaceFilesDeps,
): Promise<{ target: string; stats: Stats }> {
  // The backend's name is joined as Wegent's Rust executor joins it (no trimming, `~` a name): Codex's
  // rule; both the text form and the real path must be inside.
  const [placed] = await resolveFileTargets(
    { paths: [name], access, workdir: folder, runtime: "codex" },
    deps.places(),
  );
  if (!placed) return refuse("File name is required");
  switch (placed.where) {
    case "inside":
      break;
    case "sensitive-inside":
      if (access === "write")
        refuse(`Gatehouse does not let the backend write there: ${name} is ${whereText(placed)}`);
      break;
    case "outside":
      refuse("File path is outside workspace");
      break;
    case "unresolved":
      refuse(`Failed to resolve workspace file: ${placed.detail ?? "the path cannot be resolved safely"}`);
      break;
    default:
      refuse(`File path is outside workspace: ${name} is ${whereText(placed)}`);
  }
  let target: string;
  try {
    target = await fs.realpath(placed.resolved!);
  } catch (error) {
    return refuse(`Failed to resolve workspace file: ${osErrorText(error)}`);
  }
  const platform = deps.platform ?? process.platform;
  if (!within(target, folder, platform)) refuse("File path is outside workspace");
  let stats: Stats;
  try {
    stats = await fs.stat(target);
  } catch (error) {
    return refuse(`Failed to read file metadata: ${osErrorText(error)}`);
  }
  if (!stats.isFile()) refuse("File does not exist");
  return { target, stats };
}

async function listEntries(folder: string, platform: Platform): Promise<Record<string, unknown>> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch (error) {
    return refuse(`Failed to list workspace: ${osErrorText(error)}`);
  }
  const join = pathApi(platform).join;
  const entries: Array<Record<string, unknown> & { name: string; is_directory: boolean }> = [];
  for (const name of names) {
    const child = join(folder, name);
    const stats = await fs.lstat(child).catch(() => null);
    if (!stats) continue;
    const isDirectory = stats.isDirectory();
    entries.push({
      name,
      path: child,
      is_directory: isDirectory,
      size: isDirectory ? 0 : stats.size,
      modified_at: modifiedAt(stats),
    });
  }
  const key = (name: string) => name.toLowerCase();
  entries.sort((a, b) => {
    if (a.is_directory !== b.is_directory) return a.is_directory ? -1 : 1;
    const left = key(a.name);
    const right = key(b.name);
    return left < right ? -1 : left > right ? 1 : 0;
  });
  const listing: Record<string, unknown> = { path: folder, entries: entries.slice(0, MAX_TREE_ENTRIES) };
  if (entries.length > MAX_TREE_ENTRIES) listing.truncated = true;
  return listing;
}

async function readHead(target: string, max: number, offset = 0): Promise<Buffer> {
  const handle = await fs.open(target, "r");
  try {
    const buffer = Buffer.alloc(max);
    let filled = 0;
    while (filled < max) {
      const { bytesRead } = await handle.read(buffer, filled, max - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function fileName(target: string, platform: Platform): string {
  return pathApi(platform).basename(target);
}

async function readTextFile(
  folder: string,
  args: string[],
  deps: WorkspaceFilesDeps,
): Promise<Record<string, unknown>> {
  const platform = deps.platform ?? process.platform;
  if (args.length !== 1 || args[0]!.trim() === "") refuse("File name is required");
  const { target, stats } = await workspaceFile(folder, args[0]!, "read", deps);
  let bytes: Buffer;
  try {
    bytes = await readHead(target, MAX_TEXT_FILE_BYTES + 1);
  } catch (error) {
    return refuse(`Failed to read file: ${osErrorText(error)}`);
  }
  const truncated = bytes.length > MAX_TEXT_FILE_BYTES;
  const kept = bytes.subarray(0, MAX_TEXT_FILE_BYTES);
  return {
    success: true,
    path: target,
    name: fileName(target, platform),
    content: new TextDecoder("utf-8").decode(kept),
    editable: !truncated && isUtf8(kept),
    revision: sha256Revision(kept),
    truncated,
    size: stats.size,
    modified_at: modifiedAt(stats),
  };
}

async function readFileChunk(
  folder: string,
  args: string[],
  deps: WorkspaceFilesDeps,
): Promise<Record<string, unknown>> {
  const platform = deps.platform ?? process.platform;
  if (args.length !== 2 || args[0]!.trim() === "") refuse("File name and offset are required");
  const offsetText = args[1]!;
  // Rust's u64 parse: digits, an optional leading +, at most 2^64-1 (the file size bounds it anyway).
  if (!/^\+?\d{1,19}$/.test(offsetText)) refuse("File offset must be a non-negative integer");
  const offset = Number(offsetText.replace(/^\+/, ""));
  if (!Number.isSafeInteger(offset)) refuse("File offset must be a non-negative integer");
  const { target, stats } = await workspaceFile(folder, args[0]!, "read", deps);
  let bytes: Buffer;
  try {
    bytes = await readHead(target, MAX_CHUNK_BYTES, offset);
  } catch (error) {
    return refuse(`Failed to read file: ${osErrorText(error)}`);
  }
  return {
    path: target,
    name: fileName(target, platform),
    content_base64: bytes.toString("base64"),
    offset,
    eof: offset + bytes.length >= stats.size,
    size: stats.size,
    modified_at: modifiedAt(stats),
  };
}

/** Temp file beside the target, flushed, given the target's mode, renamed over it. */
async function replaceFile(target: string, content: Buffer, mode: number, platform: Platform): Promise<void> {
  const api = pathApi(platform);
  const temporary = api.join(
    api.dirname(target),
    `.${api.basename(target)}.gatehouse-${Math.random().toString(16).slice(2, 10)}`,
  );
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(temporary, "wx", 0o600);
  } catch (error) {
    return refuse(`Failed to create temporary file: ${osErrorText(error)}`);
  }
  try {
    try {
      await handle.writeFile(content);
    } catch (error) {
      refuse(`Failed to write file: ${osErrorText(error)}`);
    }
    try {
      await handle.sync();
    } catch (error) {
      refuse(`Failed to flush file: ${osErrorText(error)}`);
    }
    try {
      await handle.chmod(mode & 0o7777);
    } catch (error) {
      refuse(`Failed to preserve file permissions: ${osErrorText(error)}`);
    }
    await handle.close();
    try {
      await fs.rename(temporary, target);
    } catch (error) {
      refuse(`Failed to replace file: ${osErrorText(error)}`);
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function writeTextFile(
  folder: string,
  command: WorkspaceCommand,
  deps: WorkspaceFilesDeps,
): Promise<Record<string, unknown>> {
  const platform = deps.platform ?? process.platform;
  const { args } = command;
  if (args.length !== 2 || args[0]!.trim() === "" || args[1]!.trim() === "")
    refuse("File name and expected revision are required");
  if (command.stdin === null) refuse("File content is required");
  const content = Buffer.from(command.stdin!, "utf8");
  if (content.length > MAX_TEXT_FILE_BYTES) refuse("File content exceeds 256 KiB");
  const { target, stats } = await workspaceFile(folder, args[0]!, "write", deps);
  let current: Buffer;
  try {
    current = await fs.readFile(target);
  } catch (error) {
    return refuse(`Failed to read file: ${osErrorText(error)}`);
  }
  if (!isUtf8(current)) refuse("File is not valid UTF-8");
  if (sha256Revision(current) !== args[1]) refuse("Workspace file has changed on disk");
  await replaceFile(target, content, stats.mode, platform);
  let saved: Stats;
  try {
    saved = await fs.stat(target);
  } catch (error) {
    return refuse(`Failed to read saved file metadata: ${osErrorText(error)}`);
  }
  return {
    success: true,
    path: target,
    name: fileName(target, platform),
    content: command.stdin,
    editable: true,
    revision: sha256Revision(content),
    truncated: false,
    size: saved.size,
    modified_at: modifiedAt(saved),
  };
}

/** One workspace command; refusals are values carrying Wegent's error text. */
export async function runWorkspaceCommand(
  command: WorkspaceCommand,
  deps: WorkspaceFilesDeps,
): Promise<WorkspaceOutcome> {
  const started = (deps.now ?? Date.now)();
  let outcome: WorkspaceOutcome;
  let folder: string | null = null;
  try {
    folder = await workspaceFolder(command, deps);
    switch (command.commandKey) {
      case "workspace_tree":
        outcome = { ok: true, stdout: await listEntries(folder, deps.platform ?? process.platform) };
        break;
      case "workspace_read_text_file":
        outcome = { ok: true, stdout: await readTextFile(folder, command.args, deps) };
        break;
      case "workspace_read_file_chunk":
        outcome = { ok: true, stdout: await readFileChunk(folder, command.args, deps) };
        break;
      case "workspace_write_text_file":
        outcome = { ok: true, stdout: await writeTextFile(folder, command, deps) };
        break;
      default:
        outcome = { ok: false, error: `Unsupported workspace file command: ${command.commandKey}` };
    }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    outcome = { ok: false, error: error.message };
  }
  if (command.commandKey === "workspace_write_text_file")
    await auditWrite(command, folder, outcome, (deps.now ?? Date.now)() - started, deps);
  return outcome;
}

/** A write by the backend is a line in the audit log, done or refused (never its content). */
async function auditWrite(
  command: WorkspaceCommand,
  folder: string | null,
  outcome: WorkspaceOutcome,
  durationMs: number,
  deps: WorkspaceFilesDeps,
): Promise<void> {
  if (!deps.audit) return;
  const file = outcome.ok ? String(outcome.stdout.path) : (command.args[0] ?? "");
  try {
    await deps.audit.appendBuilt({
      ts: (deps.now ?? Date.now)(),
      runId: newRunId(),
      event: "run",
      agentId: "backend",
      sessionKey: "device",
      source: "backend",
      command: `${command.commandKey} ${file}`,
      cwd: folder ?? command.path ?? "",
      decision: outcome.ok ? "allow-once" : "deny",
      decidedBy: "policy",
      reason: outcome.ok ? "workspace file written inside the allowed roots" : outcome.error,
      exitCode: outcome.ok ? 0 : null,
      timedOut: false,
      durationMs: Math.max(0, durationMs),
      commandKey: command.commandKey,
    });
  } catch (error) {
    deps.logger.error("could not write the audit line of a workspace write", { error });
  }
}
