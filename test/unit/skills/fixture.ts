// The skills.md §13 fixture: H a temp home (CLAUDE_CONFIG_DIR / CODEX_HOME unset, so CH = H/.claude
// and XH = H/.codex), WS a temp workspace, platform darwin unless a case says otherwise, and PATH
// holding one folder with an executable `uv`.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, type Logger } from "../../../src/core/log.js";
import { resolvePaths, type AppPaths } from "../../../src/core/paths.js";
import {
  SkillCatalogue,
  type SkillCatalogueOptions,
  type SkillSecrets,
} from "../../../src/core/skills/index.js";
import { makeTempHome } from "../../support/temp-home.js";

/** A fake SecretStore: references → values in memory (the real one is the OS keychain). */
export class FakeSecretStore implements SkillSecrets {
  readonly values = new Map<string, string>();
  async get(ref: string): Promise<string | null> {
    return this.values.get(ref) ?? null;
  }
}

export interface SkillFixture {
  H: string;
  WS: string;
  binDir: string;
  env: Record<string, string>;
  paths: AppPaths;
  secrets: FakeSecretStore;
  logLines: string[];
  logger: Logger;
  /** Writes `<dir>/SKILL.md` with `key: value` frontmatter lines (or the raw text given) and a body. */
  skill(dir: string, frontmatter: Record<string, string> | string, body?: string): Promise<string>;
  write(file: string, text: string): Promise<void>;
  /** Writes the `skills` section of E/settings.json (plus any other top-level keys given). */
  settings(skills: Record<string, unknown>, other?: Record<string, unknown>): Promise<void>;
  engine(options?: Partial<SkillCatalogueOptions>): SkillCatalogue;
  cleanup(): Promise<void>;
}

export function frontmatterText(fields: Record<string, string>, body = "Instructions."): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

export async function makeSkillFixture(): Promise<SkillFixture> {
  const temp = await makeTempHome("gatehouse-skills-");
  const H = temp.home;
  const WS = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-ws-")));
  const binDir = path.join(H, "bin");
  await fs.mkdir(binDir);
  await fs.writeFile(path.join(binDir, "uv"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const env: Record<string, string> = { HOME: H, PATH: binDir, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const secrets = new FakeSecretStore();
  const logLines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logLines.push(line) });
  const write = async (file: string, text: string) => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
  };
  return {
    H,
    WS,
    binDir,
    env,
    paths,
    secrets,
    logLines,
    logger,
    write,
    async skill(dir, frontmatter, body) {
      const text = typeof frontmatter === "string" ? frontmatter : frontmatterText(frontmatter, body);
      await write(path.join(dir, "SKILL.md"), text);
      return dir;
    },
    async settings(skills, other = {}) {
      await write(paths.settings, JSON.stringify({ version: 1, ...other, skills }, null, 2));
    },
    engine(options = {}) {
      return new SkillCatalogue({ paths, env, platform: "darwin", secrets, logger, ...options });
    },
    async cleanup() {
      await temp.cleanup();
      await fs.rm(WS, { recursive: true, force: true });
    },
  };
}
