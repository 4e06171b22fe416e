// Tests run the real CLI from dist/: build it once before the suite, bundle included (bin/gatehouse.js
// runs dist/cli/ as users get it).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./cli.js";

export default function setup(): void {
  execFileSync(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    {
      cwd: REPO_ROOT,
      stdio: "inherit",
    },
  );
  execFileSync(process.execPath, [path.join(REPO_ROOT, "scripts/bundle-cli.mjs")], {
    cwd: REPO_ROOT,
    stdio: "inherit",
  });
}
