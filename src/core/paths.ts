// Every folder and file the app uses, derived once from the environment (device-protocol.md §1,
// architecture.md "Data folders"). Nothing else in the app reads these variables itself.
import os from "node:os";
import path from "node:path";

export interface AppPaths {
  /** The user's home folder (`~`). */
  home: string;
  /** E: WEGENT_EXECUTOR_HOME, else ~/.wegent-executor. */
  executorHome: string;
  /** CH: CLAUDE_CONFIG_DIR, else ~/.claude. */
  claudeHome: string;
  /** XH: CODEX_HOME, else ~/.codex. */
  codexHome: string;
  deviceConfig: string;
  settings: string;
  approvals: string;
  defaultSocket: string;
  audit: string;
  workdirBindings: string;
  runtimeDir: string;
  /** E/workspace: the default workspace root (workdir.md decides the effective one). */
  defaultWorkspaceRoot: string;
  capabilitiesDir: string;
  capabilityStore: string;
  capabilityManifest: string;
  logsDir: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The home folder as the given environment sees it (HOME, USERPROFILE on Windows). */
export function homeFromEnv(env: Env = process.env): string {
  return nonEmpty(env.HOME) ?? nonEmpty(env.USERPROFILE) ?? os.homedir();
}

/** Expands a leading `~` or `~/` (and `~\` on Windows) against `home`. Other `~name` forms are left as they are. */
export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/") || (process.platform === "win32" && p.startsWith("~\\"))) {
    return path.join(home, p.slice(2));
  }
  return p;
}

export function resolvePaths(env: Env = process.env): AppPaths {
  const home = homeFromEnv(env);
  const executorHome = path.resolve(
    expandHome(nonEmpty(env.WEGENT_EXECUTOR_HOME) ?? "~/.wegent-executor", home),
  );
  const claudeHome = path.resolve(expandHome(nonEmpty(env.CLAUDE_CONFIG_DIR) ?? "~/.claude", home));
  const codexHome = path.resolve(expandHome(nonEmpty(env.CODEX_HOME) ?? "~/.codex", home));
  const capabilitiesDir = path.join(executorHome, "capabilities");
  return {
    home,
    executorHome,
    claudeHome,
    codexHome,
    deviceConfig: path.join(executorHome, "device-config.json"),
    settings: path.join(executorHome, "settings.json"),
    approvals: path.join(executorHome, "exec-approvals.json"),
    defaultSocket: path.join(executorHome, "exec-approvals.sock"),
    audit: path.join(executorHome, "audit.jsonl"),
    workdirBindings: path.join(executorHome, "workdir-bindings.json"),
    runtimeDir: path.join(executorHome, "runtime"),
    defaultWorkspaceRoot: path.join(executorHome, "workspace"),
    capabilitiesDir,
    capabilityStore: path.join(capabilitiesDir, "store"),
    capabilityManifest: path.join(capabilitiesDir, "manifest.json"),
    logsDir: path.join(executorHome, "logs"),
  };
}
