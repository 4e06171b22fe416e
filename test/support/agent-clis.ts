// The real agent CLIs the tests run: the pinned ones in node_modules/.bin, or the binaries named by
// GATEHOUSE_TEST_CLAUDE / GATEHOUSE_TEST_CODEX (absolute paths), which is how CI runs the real-CLI tests a
// second time against the oldest supported versions and scripts/compat-latest.sh against @latest
// (docs/agent-clis.md). A test that needs one skips itself, saying why, where it is missing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./cli.js";

const PINNED_BIN = path.join(REPO_ROOT, "node_modules", ".bin");

function chosen(variable: string, name: string): string {
  const given = process.env[variable]?.trim();
  return given ? path.resolve(given) : path.join(PINNED_BIN, name);
}

/** The Claude Code binary the tests run. */
export const CLAUDE = chosen("GATEHOUSE_TEST_CLAUDE", "claude");
/** The Codex binary the tests run. */
export const CODEX = chosen("GATEHOUSE_TEST_CODEX", "codex");
export const HAVE_CLAUDE = existsSync(CLAUDE);
export const HAVE_CODEX = existsSync(CODEX);

/** `x.y.z` of the Claude Code under test, or null when it is missing or does not say. */
export const CLAUDE_VERSION: string | null = (() => {
  if (!HAVE_CLAUDE) return null;
  try {
    const out = execFileSync(CLAUDE, ["--version"], { encoding: "utf8", timeout: 30_000 });
    return /^(\d+\.\d+\.\d+)/.exec(out.trim())?.[1] ?? null;
  } catch {
    return null;
  }
})();

/**
 * Folders to put first on an agent's PATH so that `claude` and `codex` are the chosen binaries (the
 * task runner looks them up on PATH like a user's machine does).
 */
export const AGENT_BIN_DIRS = [...new Set([path.dirname(CLAUDE), path.dirname(CODEX)])];

/**
 * What `claude plugin list --json` lists from the config folder: newer Claude Code versions also list
 * their built-in plugins (`…@builtin`, Claude Code 2.1.332), which no config file registers.
 */
export function registeredPlugins<T extends { id: string }>(listed: T[]): T[] {
  return listed.filter((p) => !p.id.endsWith("@builtin"));
}

/** Why a test that needs the binary is skipped, for its name. */
export function missing(binary: string): string {
  return existsSync(binary) ? "" : ` (skipped: ${binary} is not installed)`;
}
