// How an agent started by this installation runs `gatehouse` (the Claude Code hook command): this
// Node binary and the installation's `bin/gatehouse.js`, both absolute. Found by walking up from this
// module, so it holds for the sources (tests) and for the compiled `dist/` alike.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function findGatehouseBin(from: string = path.dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, "bin", "gatehouse.js");
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `[node, <installation>/bin/gatehouse.js]`; a packaged app passes its own command instead. */
export function defaultGatehouseCommand(): string[] {
  const bin = findGatehouseBin();
  return bin ? [process.execPath, bin] : ["gatehouse"];
}
