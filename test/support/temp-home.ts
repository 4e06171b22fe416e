// A whole app home in a temp folder: HOME, E, CH and XH all inside it, so tests never touch the
// real user's files.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resolvePaths, type AppPaths } from "../../src/core/paths.js";

export interface TempHome {
  /** The temp folder used as HOME. Real path (macOS /var → /private/var resolved). */
  home: string;
  env: Record<string, string>;
  paths: AppPaths;
  cleanup(): Promise<void>;
}

export async function makeTempHome(
  prefix = "gatehouse-test-",
  extraEnv: Record<string, string> = {},
  /** Where the folder goes (default: the system temp folder). */
  parent: string = os.tmpdir(),
): Promise<TempHome> {
  const home = await fs.realpath(await fs.mkdtemp(path.join(parent, prefix)));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    ...extraEnv,
  };
  return {
    home,
    env,
    paths: resolvePaths(env),
    cleanup: () => fs.rm(home, { recursive: true, force: true }),
  };
}
