// Git checkout for a task (issue 31 item 3; Wegent executor/src/agents/git_workspace.rs): when a
// `task:execute` names a `git_url`, the repository is cloned into the task's resolved folder itself
// when that folder is empty (a managed folder is created empty); a folder that already holds `.git` is
// used as it is; a non-empty folder that is no repository ends the task with an error, as in Wegent.
//
// Gatehouse's rules on top of Wegent's:
// - the URL is accepted only as https, ssh (`ssh://` or `user@host:path`), git or file (a local path
//   counts as file, and must lie in a folder Gatehouse allows); git's `ext::`/`fd::` and every other
//   `<transport>::` form, a URL or branch that starts with `-` (an option), a host that starts with `-`
//   and control characters are refused before anything runs;
// - the clone is decided by the exec policy as the command it is, `git clone [--branch B
//   --single-branch] -- <url> <folder>` for agent `backend` in the task's session: an allowlist entry or
//   a person, as any backend command;
// - git runs with GIT_ALLOW_PROTOCOL=https:ssh:git:file (so neither a redirect nor a submodule reaches
//   another transport, whatever the user's git config allows) and GIT_TERMINAL_PROMPT=0; credentials (a
//   URL's user:password, or the request's `user.git_token`) never go on argv: they reach git as an
//   Authorization header through GIT_CONFIG_* variables, for that origin only, and the repository's
//   remote is written without them.
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../core/log.js";
import type { WorkdirService } from "../../core/workdir/io/service.js";
import { redactGitUrl } from "../../core/workdir/io/repo-key.js";
import type { AuditLog } from "../audit-log.js";
import { displayCommand } from "../command-text.js";
import { decideCommand, gatedChildEnv, isAllowed, type GateDeps } from "../gate.js";
import { runProcess } from "../run-process.js";

export const GIT_ALLOWED_PROTOCOLS = "https:ssh:git:file";
export const CLONE_TIMEOUT_MS = 10 * 60_000;
const CLONE_OUTPUT_BYTES = 64 * 1024;

export interface GitCheckoutRequest {
  taskId: string;
  gitUrl: string;
  branch: string | null;
  /** The task's resolved folder (a real path). */
  folder: string;
  /** `user.git_token` / `user.git_login` of the request, when given in plain text. */
  token: string | null;
  login: string | null;
  signal?: AbortSignal;
}

export type GitCheckoutOutcome =
  { kind: "cloned" } | { kind: "existing-repository" } | { kind: "failed"; message: string };

export interface GitCheckoutDeps {
  gate: GateDeps;
  workdir: Pick<WorkdirService, "checkFolder">;
  logger: Logger;
  promptTimeoutMs: number;
  audit?: AuditLog | null;
}

export type ParsedGitUrl =
  | {
      ok: true;
      url: string;
      kind: "https" | "ssh" | "git" | "file";
      credentials: { user: string; password: string } | null;
    }
  | { ok: false; reason: string };

const TRANSPORT_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*::/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const SCP_LIKE = /^(?:([A-Za-z0-9._~-]+)@)?([A-Za-z0-9][A-Za-z0-9.-]*):(?!\/\/)(.+)$/;

/** Whether git would read `url` through a transport Gatehouse allows, and its parts. */
export function parseGitUrl(raw: string): ParsedGitUrl {
  const url = raw.trim();
  if (url === "") return { ok: false, reason: "the URL is empty" };
  if (url.startsWith("-"))
    return { ok: false, reason: "the URL starts with -, which git would read as an option" };
  if (TRANSPORT_PREFIX.test(url))
    return {
      ok: false,
      reason: `git's ${url.slice(0, url.indexOf("::") + 2)} transport runs programs and is never used`,
    };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(url))
    return { ok: false, reason: "the URL holds spaces or control characters" };
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== "https" && scheme !== "ssh" && scheme !== "git" && scheme !== "file")
      return { ok: false, reason: `${scheme}:// is not one of https, ssh, git and file` };
    if (scheme === "file") return { ok: true, url, kind: "file", credentials: null };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, reason: "the URL is not understood" };
    }
    if (parsed.hostname === "" || parsed.hostname.startsWith("-"))
      return { ok: false, reason: "the URL's host is empty or starts with -" };
    if (parsed.password !== "" && scheme === "https") {
      const credentials = {
        user: decodeURIComponent(parsed.username),
        password: decodeURIComponent(parsed.password),
      };
      parsed.username = "";
      parsed.password = "";
      return { ok: true, url: parsed.toString(), kind: "https", credentials };
    }
    if (parsed.password !== "") return { ok: false, reason: "a password belongs in an https URL only" };
    return { ok: true, url, kind: scheme, credentials: null };
  }
  if (SCP_LIKE.test(url) && !/^[A-Za-z]:[\\/]/.test(url))
    return { ok: true, url, kind: "ssh", credentials: null };
  if (url.includes(":")) return { ok: false, reason: "the URL is not understood" };
  return { ok: true, url, kind: "file", credentials: null };
}

/** A branch name git reads as a name, never as an option or an expression. */
export function branchProblem(branch: string): string | null {
  if (!/^[A-Za-z0-9._/+-]+$/.test(branch)) return "it holds characters a branch name does not";
  if (branch.startsWith("-") || branch.startsWith("/") || branch.startsWith("."))
    return "it starts with -, / or .";
  if (branch.includes("..") || branch.includes("//") || branch.endsWith("/") || branch.endsWith(".lock"))
    return "git does not accept it as a branch name";
  return null;
}

/** Where a local repository (file URL or path) is: it must lie in a folder Gatehouse allows. */
function localRepositoryPath(parsed: Extract<ParsedGitUrl, { ok: true }>): string {
  if (!parsed.url.toLowerCase().startsWith("file://")) return parsed.url;
  try {
    return decodeURIComponent(new URL(parsed.url).pathname);
  } catch {
    return parsed.url.slice("file://".length);
  }
}

type FolderState = "missing" | "file" | "empty" | "non-empty" | "git-repository";

async function classify(folder: string): Promise<FolderState> {
  let stats;
  try {
    stats = await fs.lstat(folder);
  } catch {
    return "missing";
  }
  if (!stats.isDirectory()) return "file";
  try {
    await fs.lstat(path.join(folder, ".git"));
    return "git-repository";
  } catch {
    // no .git: empty or not
  }
  const entries = await fs.readdir(folder);
  return entries.length === 0 ? "empty" : "non-empty";
}

/** The variables Gatehouse itself gives git: allowed transports, no prompt, the credentials of one origin. */
export function gitEnv(
  url: string,
  credentials: { user: string; password: string } | null,
): Record<string, string> {
  const env: Record<string, string> = { GIT_ALLOW_PROTOCOL: GIT_ALLOWED_PROTOCOLS, GIT_TERMINAL_PROMPT: "0" };
  if (credentials) {
    const origin = new URL(url).origin;
    const basic = Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64");
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = `http.${origin}/.extraHeader`;
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${basic}`;
  }
  return env;
}

/** A plain-text token (Wegent also accepts ones its backend encrypted, which a device cannot read). */
function plainToken(token: string | null): string | null {
  const t = token?.trim() ?? "";
  if (t === "" || t === "***") return null;
  return t;
}

/** Clones the task's repository into its folder when needed; refusals and failures are values. */
export async function checkoutForTask(
  request: GitCheckoutRequest,
  deps: GitCheckoutDeps,
): Promise<GitCheckoutOutcome> {
  const shown = redactGitUrl(request.gitUrl);
  const parsed = parseGitUrl(request.gitUrl);
  if (!parsed.ok) return { kind: "failed", message: `git clone refused: ${shown} — ${parsed.reason}` };
  if (request.branch !== null) {
    const problem = branchProblem(request.branch);
    if (problem)
      return { kind: "failed", message: `git clone refused: branch "${request.branch}" — ${problem}` };
  }
  const state = await classify(request.folder);
  if (state === "git-repository") return { kind: "existing-repository" };
  if (state === "file")
    return { kind: "failed", message: `git workspace path exists but is not a directory: ${request.folder}` };
  if (state === "non-empty")
    return {
      kind: "failed",
      message: `git workspace path is not empty and is not a git repository: ${request.folder}`,
    };
  if (parsed.kind === "file") {
    const local = await deps.workdir.checkFolder(localRepositoryPath(parsed), { create: false });
    if (!local.ok)
      return {
        kind: "failed",
        message: `git clone refused: a local repository must be in a folder Gatehouse allows. ${local.message}`,
      };
  }
  let credentials = parsed.credentials;
  const token = plainToken(request.token);
  if (!credentials && token && parsed.kind === "https")
    credentials = { user: request.login?.trim() || "token", password: token };
  if (credentials) deps.logger.addSecret(credentials.password);

  const argv = [
    "git",
    "clone",
    ...(request.branch !== null ? ["--branch", request.branch, "--single-branch"] : []),
    "--",
    parsed.url,
    request.folder,
  ];
  const sessionKey = `task:${request.taskId}`;
  const gate = deps.gate;
  const decision = await decideCommand(
    {
      command: { argv },
      agentId: "backend",
      sessionKey,
      source: "backend",
      commandKey: "git_clone",
      reason: "the backend wants this task's repository cloned into its folder",
      cwd: request.folder,
      promptTimeoutMs: deps.promptTimeoutMs,
      ...(request.signal ? { signal: request.signal } : {}),
    },
    gate,
  );
  if (!isAllowed(decision.decision)) {
    const how =
      decision.decidedBy === "user"
        ? "denied by the person at this device"
        : `not allowed by Gatehouse (${decision.reason})`;
    return {
      kind: "failed",
      message: `git clone refused for ${request.folder}: ${how}. Allow git for agent backend, or clone the repository yourself.`,
    };
  }
  return runClone(argv, parsed.url, credentials, request, deps, decision.runId, decision.decidedBy);
}

async function runClone(
  argv: string[],
  url: string,
  credentials: { user: string; password: string } | null,
  request: GitCheckoutRequest,
  deps: GitCheckoutDeps,
  runId: string,
  decidedBy: string,
): Promise<GitCheckoutOutcome> {
  const gate = deps.gate;
  const env = await gatedChildEnv(gate);
  const run = await runProcess({
    command: { argv },
    cwd: request.folder,
    // Gatehouse's own hardening and the credentials: after the decision, never on argv.
    env: { ...env, ...gitEnv(url, credentials) },
    timeoutMs: CLONE_TIMEOUT_MS,
    maxOutputBytes: CLONE_OUTPUT_BYTES,
    outputMode: "separate",
    ...(request.signal ? { signal: request.signal } : {}),
    ...(gate.platform ? { platform: gate.platform } : {}),
  });
  const audit = deps.audit ?? gate.audit;
  try {
    await audit.appendBuilt({
      ts: gate.now(),
      runId,
      event: "run",
      agentId: "backend",
      sessionKey: `task:${request.taskId}`,
      source: "backend",
      command: displayCommand({ argv }),
      cwd: request.folder,
      decision: "allow-once",
      decidedBy: decidedBy as `rule:${string}` | "user" | "fallback" | "policy",
      reason: run.spawnError ?? (run.timedOut ? "timed out" : `exited with ${run.exitCode}`),
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      commandKey: "git_clone",
    });
  } catch (error) {
    deps.logger.error("could not write the audit line of a git clone", { error });
  }
  if (run.spawnError) return { kind: "failed", message: `failed to start git clone: ${run.spawnError}` };
  if (run.exitCode === 0 && !run.timedOut) return { kind: "cloned" };
  const detail = (run.stderr.trim() || run.stdout.trim()).split("\n").slice(-5).join("\n");
  const why = run.timedOut ? `timed out after ${CLONE_TIMEOUT_MS / 60_000} minutes` : detail;
  return { kind: "failed", message: `git clone failed for ${request.folder}: ${why}` };
}

function text(value: unknown): string | null {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/**
 * A task's git fields as Wegent's executor reads them: `git_url`, the branch from `branch_name`,
 * `branchName`, `workspace.repository.branchName` or `repository.branchName`, and `user.git_token` /
 * `user.git_login` (or their camelCase spellings). Null when the task names no repository.
 */
export function gitCheckoutFields(
  payload: Record<string, unknown>,
): Pick<GitCheckoutRequest, "gitUrl" | "branch" | "token" | "login"> | null {
  const gitUrl = text(payload.git_url);
  if (!gitUrl) return null;
  return {
    gitUrl,
    branch:
      text(payload.branch_name) ??
      text(payload.branchName) ??
      text(at(payload, "workspace", "repository", "branchName")) ??
      text(at(payload, "repository", "branchName")),
    token: text(at(payload, "user", "git_token")) ?? text(at(payload, "user", "gitToken")),
    login: text(at(payload, "user", "git_login")) ?? text(at(payload, "user", "gitLogin")),
  };
}
