// Where this Gatehouse installation lives: the nearest folder above the running module that holds
// `bin/gatehouse.js`. Found by walking up rather than by a fixed number of `..`, because the same code
// runs from three depths: src/ under the tests, dist/src/ after tsc, and one flat dist/cli/ bundle.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The installation folder (the one holding bin/, dist/ and skills/), or null when none is found. */
export function findInstallationRoot(
  from: string = path.dirname(fileURLToPath(import.meta.url)),
): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "bin", "gatehouse.js"))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}
