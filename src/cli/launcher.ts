// What bin/gatehouse.js needs before it loads the bundle: Gatehouse's home, and whether a folder is the
// user's alone (the code cache's folder). Bundled on its own (dist/cli/launcher.cjs) so the launcher
// uses paths.ts and the trust checks themselves, not copies of them.
import fs from "node:fs";
import { checkTrustedFolder } from "../core/io/trust.js";

export { resolvePaths } from "../core/paths.js";

/** An existing folder that nobody but the user can write, nor any folder above it (core/io/trust.ts). */
export function isPrivateFolder(dir: string): boolean {
  return (
    fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true && checkTrustedFolder(dir) === null
  );
}
