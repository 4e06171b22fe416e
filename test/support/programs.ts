// Where a program on PATH really lives (the path allow-always proposes and bare entries resolve to),
// and running one for its output.
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The real path of the first executable file `name` on PATH (allowlist patterns match real paths);
 * throws when there is none.
 */
export function realProgram(name: string, pathEnv = process.env.PATH ?? "/usr/bin:/bin"): string {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // next folder
    }
  }
  throw new Error(`${name} not found on PATH`);
}

/** Runs `file` to completion: its stdout when it exits 0, else an error naming it with its stderr. */
export function programOutput(
  file: string,
  args: string[],
  options: { env: Record<string, string>; cwd?: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${path.basename(file)} exited ${code}: ${err}`)),
    );
  });
}
