// How an agent started by this installation runs `gatehouse` (the Claude Code hook command): this
// Node binary and the installation's `bin/gatehouse.js`, both absolute.
import path from "node:path";
import { findInstallationRoot } from "../../core/io/installation.js";

export function findGatehouseBin(from?: string): string | null {
  const root = findInstallationRoot(from);
  return root === null ? null : path.join(root, "bin", "gatehouse.js");
}

/** `[node, <installation>/bin/gatehouse.js]`; a packaged app passes its own command instead. */
export function defaultGatehouseCommand(): string[] {
  const bin = findGatehouseBin();
  return bin ? [process.execPath, bin] : ["gatehouse"];
}
