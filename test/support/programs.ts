// Where a program on PATH really lives (the path allow-always proposes and bare entries resolve to).
import { accessSync, constants, realpathSync } from "node:fs";
import path from "node:path";

/** The real path of the first executable `name` on PATH; throws when there is none. */
export function realProgram(name: string, pathEnv = process.env.PATH ?? "/usr/bin:/bin"): string {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // next folder
    }
  }
  throw new Error(`${name} not found on PATH`);
}
