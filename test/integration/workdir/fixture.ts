// The POSIX fixture of workdir.md §12: H a temp home, E = H/.wegent-executor, W = E/workspace,
// LOCAL_WORKDIR_ALLOWED_ROOTS="~/Projects", the files, the links and the widget repository.
import fs from "node:fs/promises";
import path from "node:path";
import { createLogger, type Logger } from "../../../src/core/log.js";
import { resolvePaths } from "../../../src/core/paths.js";
import { WorkdirService } from "../../../src/core/workdir/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

export const T0 = 1_767_225_600_000;

/** workdir.md §12 case 18: roots a user may try to add on the fixture, each with the design's refusal. */
export const CASE_18_REFUSALS: ReadonlyArray<readonly [string, string]> = [
  ["~", "protected folder: your home folder"],
  ["~/.aws", "protected folder: a credentials folder"],
  ["/", "protected folder: the file system root"],
  ["~/.wegent-executor", "protected folder: Gatehouse's own data"],
  ["/usr/local", "protected folder: a system folder"],
  ["~/Projects/../..", "protected folder: the folder that holds all home folders"],
  ["relative/dir", "not an absolute path"],
  ["~/nope", "does not exist"],
  ["~/Projects/notes.txt", "not a folder"],
  ["~/Projects/foo", "already allowed: inside ~/Projects"],
];

export interface WorkdirFixture extends TempHome {
  H: string;
  E: string;
  W: string;
  /** The test clock (ms); advance it with `clock.t += …`. */
  clock: { t: number };
  logs: string[];
  logger: Logger;
  /** A started service over this home (env overrides merged into the fixture's env). */
  service(options?: { env?: Record<string, string>; deviceId?: string }): Promise<WorkdirService>;
}

export async function writeWidgetRepo(dir: string, originUrl: string, head = "main"): Promise<void> {
  await fs.mkdir(path.join(dir, ".git"), { recursive: true });
  await fs.writeFile(
    path.join(dir, ".git", "config"),
    `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = ${originUrl}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
  );
  await fs.writeFile(path.join(dir, ".git", "HEAD"), `ref: refs/heads/${head}\n`);
}

export async function makeWorkdirFixture(extraEnv: Record<string, string> = {}): Promise<WorkdirFixture> {
  const temp = await makeTempHome("gatehouse-workdir-", {
    LOCAL_WORKDIR_ALLOWED_ROOTS: "~/Projects",
    ...extraEnv,
  });
  const H = temp.home;
  const p = (...parts: string[]) => path.join(H, ...parts);
  await fs.mkdir(p("Projects", "foo"), { recursive: true });
  await fs.mkdir(p("Projects", "bar"), { recursive: true });
  await fs.writeFile(p("Projects", "notes.txt"), "notes\n");
  await fs.mkdir(p("Outside"), { recursive: true });
  await fs.mkdir(p(".ssh"), { recursive: true, mode: 0o700 });
  // Windows: junctions need no special privilege, unlike directory symlinks.
  const linkType = process.platform === "win32" ? "junction" : undefined;
  await fs.symlink(p("Projects", "foo"), p("Projects", "link-in"), linkType);
  await fs.symlink(p("Outside"), p("Projects", "link-out"), linkType);
  await fs.symlink(p(".ssh"), p("Projects", "link-ssh"), linkType);
  await fs.mkdir(p("Projects-evil", "x"), { recursive: true });
  await fs.mkdir(p("Work", "app"), { recursive: true });
  await writeWidgetRepo(p("Projects", "widget"), "git@github.com:acme/widget.git");
  const E = path.join(H, ".wegent-executor");
  const clock = { t: T0 };
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  return {
    ...temp,
    H,
    E,
    W: path.join(E, "workspace"),
    clock,
    logs,
    logger,
    async service(options = {}) {
      const env = { ...temp.env, ...options.env };
      const service = new WorkdirService({
        paths: resolvePaths(env),
        env,
        logger,
        now: () => clock.t,
        deviceId: options.deviceId ?? "dev-1",
      });
      await service.init();
      return service;
    },
  };
}
