// Read-only view of the installed agent plugins (skills.md §1 "Plugin skills"): Claude Code's
// `CH/plugins/installed_plugins.json` + `enabledPlugins` in `CH/settings.json`, and Codex's
// `[plugins."<key>"]` tables in `XH/config.toml`. These files belong to the user and the runtimes;
// nothing here writes them. A file that cannot be read gives an error line and no plugins from it.
import fs from "node:fs/promises";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { codexPluginLinkName, legacyCodexPluginLinkName } from "../../capabilities/naming.js";
import { expandHome } from "../../paths.js";
import { compareCodePoints } from "./discovery.js";

const ClaudeInstallSchema = z.looseObject({
  scope: z.string().optional(),
  installPath: z.string().optional(),
  projectPath: z.string().optional(),
  version: z.string().optional(),
});
const ClaudeRegistrySchema = z.looseObject({
  version: z.number().optional(),
  plugins: z.record(z.string(), z.union([z.array(ClaudeInstallSchema), ClaudeInstallSchema])).default({}),
});
const ClaudeSettingsSchema = z.looseObject({ enabledPlugins: z.record(z.string(), z.unknown()).optional() });
const CodexConfigSchema = z.looseObject({
  plugins: z.record(z.string(), z.looseObject({ enabled: z.boolean().optional() })).optional(),
});
const PluginManifestSchema = z.looseObject({ skills: z.union([z.string(), z.array(z.string())]).optional() });

export type PluginRuntime = "claude" | "codex";

export interface InstalledPlugin {
  /** `name@marketplace` */
  key: string;
  name: string;
  marketplace: string;
  /** Distinct install folders (Claude's and Codex's may differ). */
  installPaths: string[];
  /** Enabled in at least one runtime that has it installed. */
  enabled: boolean;
  runtimes: PluginRuntime[];
}

export interface PluginRegistryView {
  plugins: InstalledPlugin[];
  errors: string[];
}

export interface PluginRegistryFiles {
  claudeRegistry: string;
  claudeSettings: string;
  codexConfig: string;
}

export function pluginRegistryFiles(claudeHome: string, codexHome: string): PluginRegistryFiles {
  return {
    claudeRegistry: path.join(claudeHome, "plugins", "installed_plugins.json"),
    claudeSettings: path.join(claudeHome, "settings.json"),
    codexConfig: path.join(codexHome, "config.toml"),
  };
}

function splitKey(key: string): { name: string; marketplace: string } {
  const at = key.lastIndexOf("@");
  return at <= 0
    ? { name: key, marketplace: "" }
    : { name: key.slice(0, at), marketplace: key.slice(at + 1) };
}

async function readText(file: string, errors: string[]): Promise<string | null> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") errors.push(`Cannot read ${file} (${code ?? "error"})`);
    return null;
  }
}

function parseJson<S extends z.ZodType>(
  text: string,
  schema: S,
  file: string,
  errors: string[],
): z.output<S> | null {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    errors.push(`Invalid ${file}: ${parsed.error.issues[0]?.message ?? "unexpected shape"}`);
  } catch (error) {
    errors.push(`Invalid ${file}: ${(error as Error).message}`);
  }
  return null;
}

async function isDirectory(p: string): Promise<boolean> {
  return fs.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Codex keeps no install path in its config: the Gatehouse link, else the newest cached version. */
async function codexInstallPath(
  codexHome: string,
  name: string,
  marketplace: string,
): Promise<string | null> {
  // The link a sync makes today, then the name earlier versions used (capabilities/naming.ts).
  for (const folder of [
    codexPluginLinkName(name, marketplace),
    legacyCodexPluginLinkName(name, marketplace),
  ]) {
    const link = path.join(codexHome, "plugins", folder);
    if (await isDirectory(link)) return link;
  }
  const versions = path.join(codexHome, "plugins", "cache", marketplace, name);
  const names = await fs.readdir(versions).catch(() => [] as string[]);
  let best: { dir: string; mtime: number } | null = null;
  for (const version of names.sort(compareCodePoints)) {
    const dir = path.join(versions, version);
    const stat = await fs.stat(dir).catch(() => null);
    if (stat?.isDirectory() && (best === null || stat.mtimeMs >= best.mtime))
      best = { dir, mtime: stat.mtimeMs };
  }
  return best?.dir ?? null;
}

export async function readPluginRegistry(options: {
  claudeHome: string;
  codexHome: string;
  home: string;
  /** Claude installs with scope `project`/`local` count only for this workspace. */
  workspace?: string | null;
}): Promise<PluginRegistryView> {
  const errors: string[] = [];
  const files = pluginRegistryFiles(options.claudeHome, options.codexHome);
  const byKey = new Map<string, InstalledPlugin & { enabledIn: Set<PluginRuntime> }>();
  const add = (key: string, runtime: PluginRuntime, installPath: string | null, enabled: boolean) => {
    const { name, marketplace } = splitKey(key);
    let plugin = byKey.get(key);
    if (!plugin) {
      plugin = {
        key,
        name,
        marketplace,
        installPaths: [],
        enabled: false,
        runtimes: [],
        enabledIn: new Set(),
      };
      byKey.set(key, plugin);
    }
    if (!plugin.runtimes.includes(runtime)) plugin.runtimes.push(runtime);
    if (installPath !== null && !plugin.installPaths.includes(installPath))
      plugin.installPaths.push(installPath);
    if (enabled) plugin.enabledIn.add(runtime);
  };

  const registryText = await readText(files.claudeRegistry, errors);
  const registry =
    registryText === null
      ? null
      : parseJson(registryText, ClaudeRegistrySchema, files.claudeRegistry, errors);
  if (registry) {
    const settingsText = await readText(files.claudeSettings, errors);
    const settings =
      settingsText === null
        ? null
        : parseJson(settingsText, ClaudeSettingsSchema, files.claudeSettings, errors);
    const enabledPlugins = settings?.enabledPlugins ?? {};
    const workspace = options.workspace ? path.resolve(options.workspace) : null;
    for (const [key, value] of Object.entries(registry.plugins)) {
      const installs = Array.isArray(value) ? value : [value];
      const install = installs.find((i) => {
        if (i.scope === "project" || i.scope === "local") {
          return (
            workspace !== null && i.projectPath !== undefined && path.resolve(i.projectPath) === workspace
          );
        }
        return true;
      });
      if (!install) continue;
      const installPath = install.installPath
        ? path.resolve(expandHome(install.installPath, options.home))
        : null;
      add(key, "claude", installPath, enabledPlugins[key] === true);
    }
  }

  const configText = await readText(files.codexConfig, errors);
  if (configText !== null) {
    try {
      const parsed = CodexConfigSchema.safeParse(parseToml(configText));
      if (!parsed.success) errors.push(`Invalid ${files.codexConfig}: [plugins] must be a table of tables`);
      else {
        for (const [key, table] of Object.entries(parsed.data.plugins ?? {})) {
          const { name, marketplace } = splitKey(key);
          add(
            key,
            "codex",
            await codexInstallPath(options.codexHome, name, marketplace),
            table.enabled !== false,
          );
        }
      }
    } catch (error) {
      errors.push(`Invalid ${files.codexConfig}: ${((error as Error).message.split("\n")[0] ?? "").trim()}`);
    }
  }

  const plugins = [...byKey.values()]
    .sort((a, b) => compareCodePoints(a.key, b.key))
    .map(({ enabledIn, ...plugin }) => ({ ...plugin, enabled: enabledIn.size > 0 }));
  return { plugins, errors };
}

/**
 * The skill folders of a plugin: its manifest's `skills` field (a string or a list, relative to the
 * plugin root) when present, else `<install>/skills`. Paths that leave the plugin root are dropped.
 */
export async function pluginSkillFolders(
  installPath: string,
): Promise<{ folders: string[]; errors: string[] }> {
  const errors: string[] = [];
  for (const dir of [".claude-plugin", ".codex-plugin"]) {
    const file = path.join(installPath, dir, "plugin.json");
    const text = await readText(file, errors);
    if (text === null) continue;
    const manifest = parseJson(text, PluginManifestSchema, file, errors);
    if (!manifest || manifest.skills === undefined) break;
    const listed = Array.isArray(manifest.skills) ? manifest.skills : [manifest.skills];
    const folders: string[] = [];
    for (const entry of listed) {
      const folder = path.resolve(installPath, entry);
      const relative = path.relative(installPath, folder);
      if (relative.startsWith("..") || path.isAbsolute(relative)) {
        errors.push(`Ignored skills path outside the plugin ${installPath}: ${entry}`);
        continue;
      }
      if (!folders.includes(folder)) folders.push(folder);
    }
    return { folders, errors };
  }
  return { folders: [path.join(installPath, "skills")], errors };
}
