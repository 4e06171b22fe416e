// The version of an agent CLI binary (`<binary> --version`, e.g. "2.1.332 (Claude Code)"), asked once per
// binary as it is on disk (path, size and change time): a CLI updated in place is asked again. Used to
// choose the fastest gate the CLI keeps closed (the runner's HTTP hook needs `onFailure: "block"`).
import { execFile } from "node:child_process";
import fs from "node:fs/promises";

const VERSION_TIMEOUT_MS = 15_000;

export class AgentVersions {
  private readonly known = new Map<string, Promise<string | null>>();

  /** `env`: the environment the binary is asked in (a CLI installed by npm starts through node on PATH). */
  constructor(private readonly env: Readonly<Record<string, string | undefined>>) {}

  /** `x.y.z` of the binary, or null when it cannot be told (then the older, safer path is taken). */
  async of(binary: string): Promise<string | null> {
    const stat = await fs.stat(binary).catch(() => null);
    if (!stat) return null;
    const key = `${binary}\0${stat.size}\0${stat.ctimeMs}`;
    let version = this.known.get(key);
    if (!version) {
      version = askVersion(binary, this.env);
      this.known.set(key, version);
      // An answer that could not be read is asked again next time.
      void version.then((v) => v === null && this.known.delete(key));
    }
    return version;
  }
}

function askVersion(
  binary: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      binary,
      ["--version"],
      { timeout: VERSION_TIMEOUT_MS, encoding: "utf8", env: { ...env } },
      (error, stdout) => resolve(error ? null : (/^(\d+\.\d+\.\d+)/m.exec(stdout.trim())?.[1] ?? null)),
    );
  });
}
