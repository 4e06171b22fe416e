// Planning a sync (device-protocol.md §7.5, §7.6, §7.9 and issue 18 "plan, then apply"): every
// item's store folder and runtime paths are computed and checked — file-system lengths, collisions
// with other items and with the entries the sync leaves alone, ownership of what is there now — before
// anything on disk changes. A problem fails its item; nothing here writes.
import fs from "node:fs/promises";
import path from "node:path";
import type { SyncItemResult } from "../last-sync.js";
import { firstLinkBetween, inspectRuntimePath, linkTempPath } from "./links.js";
import type { CapabilityManifest } from "./manifest.js";
import { msg } from "../messages.js";
import {
  CLAUDE_MARKETPLACE,
  claudePluginKey,
  codexPluginLinkName,
  collisionKey,
  pluginStoreName,
  skillStoreName,
} from "../naming.js";
import { firstPathProblem } from "../path-limits.js";
import type { PluginItem, SkillItem } from "../payload.js";
import type { ClaudeFiles } from "./claude-registry.js";
import type { RuntimeLinks } from "./runtime-links.js";
import { fail } from "../sync-run.js";

export interface SkillPlan {
  kind: "skill";
  item: SkillItem;
  result: SyncItemResult;
  storePath: string;
  links: string[];
  current: boolean;
  /** Both runtime paths were already Gatehouse links to `storePath` when checked. */
  linksInPlace: boolean;
  /** The item is current in a folder named the earlier way: moved to `storePath` before any swap. */
  migrateFrom?: string;
  staged?: string;
  /** Where the folder the package replaces waits in `.trash` until the commit (sync-journal.ts). */
  previous?: string;
}

export interface PluginPlan {
  kind: "plugin";
  item: PluginItem;
  result: SyncItemResult;
  /** Absent for a plugin without `installed_plugin_id`: recorded in the manifest only. */
  storePath?: string;
  claudeLink?: string;
  codexLink?: string;
  current: boolean;
  linksInPlace: boolean;
  migrateFrom?: string;
  staged?: string;
  previous?: string;
}

export type Plan = SkillPlan | PluginPlan;

export interface PlanContext {
  claudeHome: string;
  codexHome: string;
  skillsDir: string;
  pluginsDir: string;
  platform: NodeJS.Platform;
  links: RuntimeLinks;
  old: CapabilityManifest;
  /** Store folders the old manifest records, by collision key → the entry recording it. */
  recordedStore: Map<string, string>;
  /** Claude Code keys (`<name>@gatehouse`) the old manifest's synced plugins hold. */
  claudeKeysOwned: Set<string>;
  /** Why no synced plugin can be registered in Claude Code (claude-marketplaces.ts), or null. */
  claudeMarketplaceProblem: string | null;
}

export function owner(plan: Plan): string {
  return plan.kind === "skill" ? `skill ${plan.item.name}` : `plugin ${plan.item.key}`;
}

/** Every path a plan will create or take over. */
export function planPaths(plan: Plan): string[] {
  if (plan.kind === "skill") return [plan.storePath, ...plan.links];
  return [plan.storePath, plan.claudeLink, plan.codexLink].filter((p): p is string => p !== undefined);
}

async function isFile(p: string): Promise<boolean> {
  return (await fs.stat(p).catch(() => null))?.isFile() ?? false;
}

/** The store folders of the old manifest, keyed for collisions, with the entry recording each. */
export function recordedStoreFolders(manifest: CapabilityManifest, links: RuntimeLinks): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, entry] of Object.entries(manifest.skills))
    if (entry.store_path) out.set(collisionKey(links.resolve(entry.store_path)), `skill ${name}`);
  for (const [key, entry] of Object.entries(manifest.plugins))
    if (entry.store_path) out.set(collisionKey(links.resolve(entry.store_path)), `plugin ${key}`);
  return out;
}

/**
 * Whether the package in `dir` can be used as it is. A folder another manifest entry records is never
 * current for this item, even if it holds a package: it is that entry's.
 */
async function currentIn(
  dir: string,
  self: string,
  ctx: PlanContext,
  packageThere: (dir: string) => Promise<boolean>,
  unchanged: boolean,
): Promise<boolean> {
  const recordedBy = ctx.recordedStore.get(collisionKey(dir));
  if (recordedBy !== undefined && recordedBy !== self) return false;
  return unchanged && (await packageThere(dir));
}

/** The earlier folder of an entry, when it is a different folder directly under `parent`. */
function earlierFolder(
  recorded: string | undefined,
  now: string,
  parent: string,
  ctx: PlanContext,
): string | null {
  if (!recorded) return null;
  const p = ctx.links.resolve(recorded);
  return p !== now && path.dirname(p) === parent ? p : null;
}

export async function planSkill(
  item: SkillItem,
  result: SyncItemResult,
  ctx: PlanContext,
): Promise<SkillPlan> {
  const storePath = path.join(ctx.skillsDir, skillStoreName(item.skillId, item.namespace, item.name));
  const links = [
    path.join(ctx.claudeHome, "skills", item.name),
    path.join(ctx.codexHome, "skills", item.name),
  ];
  const plan: SkillPlan = {
    kind: "skill",
    item,
    result,
    storePath,
    links,
    current: false,
    linksInPlace: false,
  };
  if (item.duplicate) {
    fail(result, msg.duplicateSkill(item.name));
    return plan;
  }
  // The links first: they are named exactly as the item, so the numbers in the message are its own.
  const tooLong = firstPathProblem([...links, ...links.map(linkTempPath), storePath], ctx.platform);
  if (tooLong) {
    fail(result, msg.nameTooLong(item.name, tooLong));
    return plan;
  }
  const previous = ctx.old.skills[item.name];
  const options = ctx.links.linkOptions(ctx.links.copiesOf(previous?.runtime));
  let inPlace = 0;
  for (const link of links) {
    const state = await inspectRuntimePath(link, options);
    if (state.kind === "user") {
      fail(result, msg.skillPathOccupied);
      return plan;
    }
    if (state.kind === "owned" && !state.copy && state.target === storePath) inPlace++;
  }
  plan.linksInPlace = inPlace === links.length;
  const unchanged =
    item.contentHash === undefined ||
    (previous?.skill_id === item.skillId &&
      previous.namespace === item.namespace &&
      previous.content_hash === item.contentHash);
  const hasSkill = (dir: string) => isFile(path.join(dir, "SKILL.md"));
  const self = `skill ${item.name}`;
  if (await currentIn(storePath, self, ctx, hasSkill, unchanged)) plan.current = true;
  else {
    const earlier = earlierFolder(previous?.store_path, storePath, ctx.skillsDir, ctx);
    if (earlier && (await currentIn(earlier, self, ctx, hasSkill, unchanged))) {
      plan.current = true;
      plan.migrateFrom = earlier;
    }
  }
  return plan;
}

export async function planPlugin(
  item: PluginItem,
  result: SyncItemResult,
  ctx: PlanContext,
  claude: ClaudeFiles | null,
): Promise<PluginPlan> {
  const plan: PluginPlan = { kind: "plugin", item, result, current: false, linksInPlace: false };
  if (item.duplicate) {
    fail(result, msg.duplicatePlugin(item.key));
    return plan;
  }
  const previous = ctx.old.plugins[item.key];
  // Claude Code knows every synced plugin as `<name>@gatehouse` (naming.ts), so its cache folder is
  // Gatehouse's too: never a folder of the backend's marketplace, where the user's own installs live.
  const claudeLink = path.join(ctx.links.cacheDir, CLAUDE_MARKETPLACE, item.name, item.version);
  const codexLink = path.join(ctx.codexHome, "plugins", codexPluginLinkName(item.name, item.marketplace));
  const options = ctx.links.linkOptions(ctx.links.copiesOf(previous?.runtime));
  if (ctx.claudeMarketplaceProblem !== null && item.installedPluginId !== undefined) {
    fail(result, ctx.claudeMarketplaceProblem);
    return plan;
  }
  const claudeKey = claudePluginKey(item.name);
  for (const key of new Set([item.key, claudeKey])) {
    if (!claude || !Object.hasOwn(claude.plugins, key) || ctx.claudeKeysOwned.has(key)) continue;
    if (key === item.key && previous?.managed === true) continue; // registered by an earlier Gatehouse
    // A registry entry written by an interrupted sync points at our own link: repair, not conflict.
    const entry = claude.plugins[key];
    const first = Array.isArray(entry) ? (entry[0] as Record<string, unknown> | undefined) : undefined;
    const leftover =
      first?.installPath === claudeLink && (await inspectRuntimePath(claudeLink, options)).kind === "owned";
    if (!leftover) {
      fail(result, msg.pluginRegisteredByUser(key));
      return plan;
    }
  }
  if (item.installedPluginId === undefined) return plan; // manifest only, no files
  const storePath = path.join(
    ctx.pluginsDir,
    pluginStoreName(item.installedPluginId, item.marketplace, item.name, item.version),
  );
  const runtime = [claudeLink, codexLink];
  const tooLong = firstPathProblem([...runtime, ...runtime.map(linkTempPath), storePath], ctx.platform);
  if (tooLong) {
    fail(result, msg.nameTooLong(item.key, tooLong));
    return plan;
  }
  const linkedParent = await firstLinkBetween(ctx.links.cacheDir, path.dirname(claudeLink));
  if (linkedParent) {
    fail(result, msg.managedPathSymlink(linkedParent));
    return plan;
  }
  let inPlace = 0;
  for (const link of runtime) {
    const state = await inspectRuntimePath(link, options);
    if (state.kind === "user") {
      fail(result, msg.pluginPathOccupied);
      return plan;
    }
    if (state.kind === "owned" && !state.copy && state.target === storePath) inPlace++;
  }
  plan.linksInPlace = inPlace === 2;
  plan.storePath = storePath;
  plan.claudeLink = claudeLink;
  plan.codexLink = codexLink;
  const unchanged = item.checksum === undefined || previous?.checksum === item.checksum;
  const hasManifest = async (dir: string) =>
    (await isFile(path.join(dir, ".claude-plugin", "plugin.json"))) ||
    (await isFile(path.join(dir, ".codex-plugin", "plugin.json")));
  const self = `plugin ${item.key}`;
  if (await currentIn(storePath, self, ctx, hasManifest, unchanged)) plan.current = true;
  else {
    const earlier = earlierFolder(previous?.store_path, storePath, ctx.pluginsDir, ctx);
    if (earlier && (await currentIn(earlier, self, ctx, hasManifest, unchanged))) {
      plan.current = true;
      plan.migrateFrom = earlier;
    }
  }
  if (!plan.current && !item.downloadPath) fail(result, msg.pluginUnavailable(item.key));
  return plan;
}

/**
 * Refuses items that would share a store folder or a runtime path (compared composed and
 * case-folded) with an entry this sync leaves alone, or with an earlier item of the payload.
 * Entries the payload updates are represented by their items; removed entries claim nothing
 * (removals run first). Returns the runtime paths the surviving plans will own.
 */
export function refuseCollisions(
  plans: Plan[],
  untouched: Array<{ owner: string; paths: string[]; claudeKey?: string | undefined }>,
): Set<string> {
  const claims = new Map<string, string>();
  // One plugin of a name in Gatehouse's Claude Code marketplace: `<name>@gatehouse` (naming.ts).
  const keys = new Map<string, string>();
  for (const entry of untouched) {
    for (const p of entry.paths) claims.set(collisionKey(p), entry.owner);
    if (entry.claudeKey) keys.set(collisionKey(entry.claudeKey), entry.owner);
  }
  const planned = new Set<string>();
  for (const plan of plans) {
    if (plan.result.status !== "synced") continue;
    const self = owner(plan);
    const claudeKey = plan.kind === "plugin" && plan.claudeLink ? claudePluginKey(plan.item.name) : null;
    const keyHolder = claudeKey === null ? undefined : keys.get(collisionKey(claudeKey));
    if (keyHolder !== undefined && keyHolder !== self) {
      fail(plan.result, msg.claudeKeyTaken(self, keyHolder, claudeKey!));
      continue;
    }
    const paths = planPaths(plan);
    const holder = paths.map((p) => claims.get(collisionKey(p))).find((h) => h !== undefined && h !== self);
    if (holder !== undefined) {
      fail(plan.result, msg.pathCollision(self, holder));
      continue;
    }
    for (const p of paths) claims.set(collisionKey(p), self);
    if (claudeKey !== null) keys.set(collisionKey(claudeKey), self);
    for (const p of paths) planned.add(p);
  }
  return planned;
}
