// Reads what an agent CLI binary is (core/runtime/agent-cli.ts): `<cli> --version`, and for Claude Code
// `<cli> --help` (the options a launch may need), once per binary — its real path, size and modification
// time — while it stays the same, so a task start costs nothing after the first. Two tasks starting at
// once share one read. A binary that cannot be run or does not answer in time has no version (refused).
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import type { Env } from "../../core/paths.js";
import {
  AGENT_CLI_SUPPORT,
  compareVersions,
  helpOptions,
  parseAgentVersion,
  type AgentCliFacts,
} from "../../core/runtime/agent-cli.js";
import type { RuntimeKind } from "../../core/runtime/index.js";

/** Under a loaded machine a native CLI can take seconds to print its version. */
export const PROBE_TIMEOUT_MS = 30_000;

export interface ProbeResult extends AgentCliFacts {
  /** What `--version` printed (first line), or why it could not be read. */
  versionOutput: string;
}

function run(file: string, args: string[], env: Env): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const out = `${String(stdout)}${String(stderr)}`;
        if (error) resolve({ ok: false, out: out.trim() || error.message });
        else resolve({ ok: true, out: String(stdout) });
      },
    );
  });
}

/** The smallest environment a CLI needs to say what it is: no tokens, no updates, no traffic. */
function probeEnv(env: Env): Env {
  const keep = ["PATH", "HOME", "USERPROFILE", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "LANG"];
  const out: Record<string, string> = {
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
  };
  // Compared upper-cased: Windows spells them as it likes (`Path`).
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && keep.includes(key.toUpperCase())) out[key] = value;
  return out;
}

export class AgentCliProbe {
  private readonly known = new Map<string, Promise<ProbeResult>>();

  constructor(private readonly env: Env) {}

  /** The facts of `file` (an absolute path to the binary a task would start). */
  async probe(runtime: RuntimeKind, file: string): Promise<ProbeResult> {
    let identity: string;
    try {
      const real = await fs.realpath(file);
      const stat = await fs.stat(real);
      identity = `${runtime}\0${real}\0${stat.size}\0${stat.mtimeMs}`;
    } catch (error) {
      return this.unreadable(runtime, file, (error as Error).message);
    }
    let found = this.known.get(identity);
    if (!found) {
      found = this.read(runtime, file);
      this.known.set(identity, found);
      // A failed read is not kept: the next task tries again (a CLI busy updating itself, a timeout).
      void found.then((r) => (r.version === null ? this.known.delete(identity) : undefined));
    }
    return found;
  }

  private async read(runtime: RuntimeKind, file: string): Promise<ProbeResult> {
    const env = probeEnv(this.env);
    const version = await run(file, ["--version"], env);
    const firstLine =
      version.out
        .split("\n")
        .find((l) => l.trim() !== "")
        ?.trim() ?? "";
    const parsed = version.ok ? parseAgentVersion(runtime, version.out) : null;
    let options = new Set<string>();
    // The options matter only for a version that will run.
    if (
      parsed !== null &&
      runtime === "claude-code" &&
      compareVersions(parsed, AGENT_CLI_SUPPORT[runtime].oldest) >= 0
    ) {
      const help = await run(file, ["--help"], env);
      if (help.ok) options = helpOptions(help.out);
    }
    return { runtime, file, version: parsed, options, versionOutput: firstLine.slice(0, 200) };
  }

  private unreadable(runtime: RuntimeKind, file: string, why: string): ProbeResult {
    return { runtime, file, version: null, options: new Set(), versionOutput: why };
  }
}
