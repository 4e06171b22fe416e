// The crash harness of capability sync (issue 30): a scenario of several syncs runs in a fresh home
// holding the user's own files, stopped just before file-system step N (fs-steps.ts); then the next
// start and the next sync run, and what is on disk is compared with clean runs. Used by
// test/integration/capabilities/crash.test.ts (every step of a fixed scenario) and
// scripts/crash-stress.mjs (random scenarios, in process or with real SIGKILLs).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CapabilitySync,
  lastSyncFile,
  loadManifest,
  type SyncAck,
} from "../../src/core/capabilities/index.js";
import { createLogger } from "../../src/core/log.js";
import type { AppPaths } from "../../src/core/paths.js";
import type { PackageServer } from "../../src/demo-backend/package-server.js";
import { httpPackageDownloader } from "../../src/device/package-download.js";
import { makeZip, skillMd } from "./archives.js";
import {
  installFsSteps,
  replaySteps,
  setProcessGate,
  StepGate,
  withStepGate,
  type FsStep,
} from "./fs-steps.js";
import { sha256 } from "./published-packages.js";
import { makeTempHome, type TempHome } from "./temp-home.js";

// ---- scenarios ----

export interface SkillSpec {
  name: string;
  id: number;
  /** Package content revision: a new one is a new content hash. */
  rev: number;
}
export interface PluginSpec {
  name: string;
  id: number;
  version: string;
  rev: number;
  enabled: boolean;
}
export interface McpSpec {
  name: string;
  id: number;
  url: string;
}
export interface SyncSpec {
  mode: "replace" | "merge";
  skills: SkillSpec[];
  plugins: PluginSpec[];
  mcps: McpSpec[];
}
/** Syncs one process receives one after the other; the last is a replace (the registration's). */
export type Scenario = SyncSpec[];

export const MARKETPLACE = "mp";

/**
 * The fixed scenario CI runs at every step: v1 of three skills, three plugins and two MCP servers;
 * then a replace that keeps a skill, changes another's content in its folder, removes one and adds
 * one; switches a plugin from 1.0.0 to 2.0.0 (the switch of issue 30), disables one whose package
 * changes without a new version, removes one and adds one; changes an MCP server, removes one and
 * adds one.
 */
export const FIXED_SCENARIO: Scenario = [
  {
    mode: "replace",
    skills: [
      { name: "keep", id: 1, rev: 1 },
      { name: "bump", id: 2, rev: 1 },
      { name: "drop", id: 3, rev: 1 },
    ],
    plugins: [
      { name: "pflag", id: 11, version: "1.0.0", rev: 1, enabled: true },
      { name: "pswitch", id: 12, version: "1.0.0", rev: 1, enabled: true },
      { name: "pdrop", id: 13, version: "1.0.0", rev: 1, enabled: true },
    ],
    mcps: [
      { name: "one", id: 1, url: "https://mcp.example/one" },
      { name: "two", id: 2, url: "https://mcp.example/two" },
    ],
  },
  {
    mode: "replace",
    skills: [
      { name: "keep", id: 1, rev: 1 },
      { name: "bump", id: 2, rev: 2 },
      { name: "new", id: 4, rev: 1 },
    ],
    plugins: [
      { name: "pflag", id: 11, version: "1.0.0", rev: 2, enabled: false },
      { name: "pswitch", id: 12, version: "2.0.0", rev: 2, enabled: true },
      { name: "pnew", id: 14, version: "1.0.0", rev: 1, enabled: true },
    ],
    mcps: [
      { name: "one", id: 1, url: "https://mcp.example/one-v2" },
      { name: "three", id: 3, url: "https://mcp.example/three" },
    ],
  },
];

/** Deterministic pseudo-random numbers (mulberry32): a seed names a scenario. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random scenario: 2–4 syncs over a small pool of names, so items come, go, come back, change
 * content, id, version and enabled flag; merges in between; the last sync a replace.
 */
export function randomScenario(seed: number): Scenario {
  const random = seededRandom(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const count = 2 + Math.floor(random() * 3);
  const skills = ["alpha", "beta", "gamma", "delta"];
  const plugins = ["pa", "pb", "pc"];
  const mcps = ["ma", "mb", "mc"];
  const out: Scenario = [];
  for (let i = 0; i < count; i++) {
    const some = <T>(names: string[], make: (name: string, index: number) => T) =>
      names.flatMap((name, index) => (random() < 0.6 ? [make(name, index)] : []));
    out.push({
      mode: i === count - 1 || random() < 0.6 ? "replace" : "merge",
      skills: some(skills, (name, index) => ({
        name,
        id: 10 * (index + 1) + (random() < 0.2 ? 1 : 0),
        rev: pick([1, 1, 2]),
      })),
      plugins: some(plugins, (name, index) => ({
        name,
        id: 100 + index,
        version: pick(["1.0.0", "1.0.0", "2.0.0", "3.0.0"]),
        rev: pick([1, 1, 2]),
        enabled: random() < 0.8,
      })),
      mcps: some(mcps, (name, index) => ({
        name,
        id: index + 1,
        url: `https://mcp.example/${name}/${pick([1, 2])}`,
      })),
    });
  }
  return out;
}

/** Publishes every package the scenario names and returns its payloads. */
export async function publishScenario(server: PackageServer, scenario: Scenario): Promise<unknown[]> {
  const payloads: unknown[] = [];
  for (const sync of scenario) {
    const skills = [];
    for (const s of sync.skills) {
      // one file per package: every file is a few more steps at every kill point
      const bytes = await makeZip([{ name: "SKILL.md", data: skillMd(s.name, `${s.name} rev ${s.rev}`) }]);
      const downloadPath = `/packages/skills/${s.id}/${s.name}/rev${s.rev}.zip`;
      server.serve(downloadPath, bytes);
      skills.push({
        installed_skill_id: s.id + 1000,
        skill_id: s.id,
        name: s.name,
        namespace: "default",
        content_hash: sha256(bytes),
        download_path: downloadPath,
      });
    }
    const plugins = [];
    for (const p of sync.plugins) {
      const manifest = { name: p.name, version: p.version, description: `${p.name} rev ${p.rev}` };
      const bytes = await makeZip([{ name: ".claude-plugin/plugin.json", data: JSON.stringify(manifest) }]);
      const downloadPath = `/packages/plugins/${p.id}/${p.name}/${p.version}/rev${p.rev}.zip`;
      server.serve(downloadPath, bytes);
      plugins.push({
        installed_plugin_id: p.id,
        name: p.name,
        marketplace: MARKETPLACE,
        version: p.version,
        enabled: p.enabled,
        checksum: sha256(bytes),
        download_path: downloadPath,
      });
    }
    const mcps = sync.mcps.map((m) => ({
      installed_mcp_id: m.id,
      name: m.name,
      server: { type: "streamable-http", url: m.url },
    }));
    payloads.push({ mode: sync.mode, skills, plugins, mcps });
  }
  return payloads;
}

// ---- the user's own files: they must come out of every crash exactly as they went in ----

export function seedUserFiles(paths: AppPaths): void {
  // Blocking calls: this runs before every kill point, and a thread pool round trip per call is slow.
  const write = (file: string, text: string) => {
    fsSync.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fsSync.writeFileSync(file, text, { mode: 0o600 });
  };
  const skill = (name: string) => `---\nname: ${name}\ndescription: mine\n---\n# ${name}\n`;
  write(path.join(paths.claudeHome, "skills", "mine", "SKILL.md"), skill("mine"));
  write(path.join(paths.codexHome, "skills", "mine", "SKILL.md"), skill("mine"));
  write(
    path.join(paths.claudeHome, "settings.json"),
    `${JSON.stringify({ theme: "dark", enabledPlugins: { "own@own-mp": true } }, null, 2)}\n`,
  );
  write(
    path.join(paths.claudeHome, "plugins", "installed_plugins.json"),
    `${JSON.stringify(
      {
        version: 2,
        plugins: {
          "own@own-mp": [
            {
              scope: "user",
              installPath: path.join(paths.claudeHome, "plugins", "cache", "own-mp", "own", "1.2.3"),
              version: "1.2.3",
              installedAt: "2025-01-01T00:00:00.000Z",
              lastUpdated: "2025-01-01T00:00:00.000Z",
            },
          ],
        },
      },
      null,
      2,
    )}\n`,
  );
  write(
    path.join(
      paths.claudeHome,
      "plugins",
      "cache",
      "own-mp",
      "own",
      "1.2.3",
      ".claude-plugin",
      "plugin.json",
    ),
    `${JSON.stringify({ name: "own", version: "1.2.3" })}\n`,
  );
  write(
    path.join(paths.claudeHome, "plugins", "known_marketplaces.json"),
    `${JSON.stringify(
      {
        "own-mp": {
          source: { source: "github", repo: "me/own-mp" },
          installLocation: path.join(paths.claudeHome, "plugins", "marketplaces", "own-mp"),
          lastUpdated: "2025-01-01T00:00:00.000Z",
        },
      },
      null,
      2,
    )}\n`,
  );
  write(
    path.join(paths.codexHome, "config.toml"),
    'model = "o3"\n\n[plugins."own@own-mp"]\nenabled = true\n',
  );
}

// ---- what a sync is responsible for, comparable across homes and clocks ----

const TIMESTAMP_KEYS = new Set([
  "updated_at",
  "last_sync_at",
  "revision",
  "installedAt",
  "lastUpdated",
  "finished_at",
]);

function normalise(value: unknown, home: string): unknown {
  if (typeof value === "string") return value.split(home).join("~");
  if (Array.isArray(value)) return value.map((v) => normalise(v, home));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      if (!TIMESTAMP_KEYS.has(key)) out[key] = normalise((value as Record<string, unknown>)[key], home);
    return out;
  }
  return value;
}

/** path (relative to the home) → what is there: "dir 755", "link ~/…", "file 644 <digest>". */
export type DiskState = Record<string, string>;

/** Names Gatehouse makes up at random (staging, trash, temp links, copies and files): any one will do. */
function withoutRandomNames(text: string): string {
  return text
    .replace(/(\.staging|\.trash)\/[0-9a-f]{16}/g, "$1/*")
    .replace(/\.gatehouse-(link|copy)-[0-9a-f]{12}/g, ".gatehouse-$1-*")
    .replace(/\.gatehouse-[0-9a-f]{12}/g, ".gatehouse-*");
}

/**
 * Everything under E/capabilities, CH and XH. JSON files are compared parsed, without the home
 * folder and timestamps; other files by content with the home folder replaced; names made up at
 * random as one; empty folders not at all. The record of the last sync (`last-sync.json`) is left out: it reports a sync, and
 * a kill after the manifest's write leaves the one before (`caps status` says which revision).
 */
export function diskState(t: TempHome): DiskState {
  const found = new Map<string, string[]>();
  const add = (rel: string, value: string) => {
    // two made-up names in one folder (two staging folders) become one key: keep every value
    found.set(rel, [...(found.get(rel) ?? []), value]);
  };
  const skipped = lastSyncFile(t.paths.capabilitiesDir);
  /** Returns whether the folder holds anything. Blocking calls: this runs at every kill point. */
  const walk = (dir: string): boolean => {
    let names: string[];
    try {
      names = fsSync.readdirSync(dir).sort();
    } catch {
      return false;
    }
    let any = false;
    for (const name of names) {
      const full = path.join(dir, name);
      if (full === skipped) continue;
      const rel = withoutRandomNames(path.relative(t.home, full));
      const stat = fsSync.lstatSync(full);
      if (stat.isDirectory()) {
        // a folder with nothing but empty folders in it holds nothing anyone reads: not state
        if (walk(full)) add(rel, `dir ${(stat.mode & 0o777).toString(8)}`);
        else continue;
      } else if (stat.isSymbolicLink()) add(rel, `link ${fsSync.readlinkSync(full).split(t.home).join("~")}`);
      else {
        const text = fsSync.readFileSync(full, "utf8");
        let content: string;
        // a JSON file, or the temp file of one being written
        if (/\.json(\.gatehouse-[0-9a-f]{12})?$/.test(name)) {
          try {
            content = JSON.stringify(normalise(JSON.parse(text), t.home));
          } catch {
            content = `not JSON: ${text.slice(0, 80)}`;
          }
        } else content = text.split(t.home).join("~");
        content = withoutRandomNames(content);
        const digest = content.length > 200 ? createHash("sha256").update(content).digest("hex") : content;
        add(rel, `file ${(stat.mode & 0o777).toString(8)} ${digest}`);
      }
      any = true;
    }
    return any;
  };
  for (const root of [t.paths.capabilitiesDir, t.paths.claudeHome, t.paths.codexHome]) walk(root);
  const out: DiskState = {};
  for (const [rel, values] of [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out[rel] = values.sort().join(" | ");
  return out;
}

/** The paths where two states differ, each with both sides ("-" for absent). */
export function stateDifferences(got: DiskState, want: DiskState, limit = 8): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(got), ...Object.keys(want)])].sort()) {
    if (got[key] === want[key]) continue;
    out.push(`${key}: ${got[key] ?? "-"} (want ${want[key] ?? "-"})`);
    if (out.length >= limit) break;
  }
  return out;
}

// ---- running syncs ----

export interface SyncOptions {
  /** Packages fetched at once. 1 in a stopped run, so the order of its steps never varies. */
  concurrency?: number;
  log?: string[];
  /** A file system without links (runtime paths become marked copies, as where Windows refuses them). */
  noLinks?: boolean;
}

const refuseLinks = async (): Promise<void> => {
  throw Object.assign(new Error("EPERM: operation not permitted, symlink"), { code: "EPERM" });
};

export function makeSync(paths: AppPaths, server: PackageServer, options: SyncOptions = {}): CapabilitySync {
  const log = options.log;
  return new CapabilitySync({
    download: httpPackageDownloader(),
    paths,
    backendUrl: () => server.backendUrl,
    deviceToken: async () => server.token,
    logger: createLogger({ level: "warn", sink: (line) => log?.push(line) }),
    ...(options.concurrency !== undefined && { limits: { concurrency: options.concurrency } }),
    ...(options.noLinks && { symlink: refuseLinks }),
  });
}

export interface StoppedRun {
  /** Acks of the syncs that finished before the stop. */
  acks: SyncAck[];
  stopped: boolean;
  /** The steps taken (all of them when not stopped), each able to replay itself. */
  steps: FsStep[];
  /** After each sync, how many steps had been taken: where each sync ends. */
  syncEnds: number[];
}

/**
 * One process's life in the scenario — start-up, then each payload — stopped just before step
 * `stopAt` (null: run to the end and record every step). The stop freezes the run: the disk holds
 * exactly steps 1…stopAt-1, as after a SIGKILL there (crash.test.ts checks both agree).
 */
export async function runStopped(
  t: TempHome,
  server: PackageServer,
  payloads: unknown[],
  stopAt: number | null,
  variant: { noLinks?: boolean } = {},
): Promise<StoppedRun> {
  installFsSteps();
  const gate = new StepGate({ root: t.home, stopAt, onStop: "freeze" });
  const acks: SyncAck[] = [];
  const syncEnds: number[] = [];
  const life = async () => {
    const sync = makeSync(t.paths, server, { concurrency: 1, noLinks: variant.noLinks });
    await sync.startup();
    for (const payload of payloads) {
      acks.push(await sync.applySync(payload));
      syncEnds.push(gate.steps.length);
    }
  };
  if (stopAt === null) {
    // Nothing stops: the gate can be the process's (async context tracking would slow down every
    // promise of this process for the rest of the file).
    setProcessGate(gate);
    try {
      await life();
    } finally {
      setProcessGate(null);
    }
  } else {
    // A frozen run's calls must stay pending even after the next run starts: they carry their gate.
    await Promise.race([withStepGate(gate, life), gate.whenStopped]);
    await gate.release();
  }
  return { acks, stopped: gate.stopped, steps: gate.steps, syncEnds };
}

/** A start-up stopped just before its step `stopAt` (a kill while it repairs); whether it got there. */
export async function startupStopped(
  t: TempHome,
  server: PackageServer,
  stopAt: number,
  noLinks?: boolean,
): Promise<boolean> {
  installFsSteps();
  const gate = new StepGate({ root: t.home, stopAt, onStop: "freeze" });
  const sync = makeSync(t.paths, server, { noLinks });
  await Promise.race([withStepGate(gate, () => sync.startup()), gate.whenStopped]);
  await gate.release();
  return gate.stopped;
}

/** Empties the home and puts the user's files back: the disk before the scenario's first step. */
export function resetHome(t: TempHome): void {
  for (const name of fsSync.readdirSync(t.home))
    fsSync.rmSync(path.join(t.home, name), { recursive: true, force: true });
  seedUserFiles(t.paths);
}

/**
 * The disk a kill just before step `stopAt` leaves, rebuilt from a recorded run in the same home
 * (the paths inside links and files are that home's): the user's files, then steps 1…stopAt-1.
 */
export function replayedKill(t: TempHome, recorded: StoppedRun, stopAt: number): void {
  resetHome(t);
  replaySteps(recorded.steps, stopAt - 1);
}

/** Which sync a kill just before `stopAt` interrupted (payloads.length: none, it came after them). */
export function interruptedSync(recorded: StoppedRun, stopAt: number): number {
  return recorded.syncEnds.filter((end) => end <= stopAt - 1).length;
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The same run in a child process that SIGKILLs itself just before step `stopAt` (kill-at-step.ts). */
export async function runKilledChild(
  t: TempHome,
  server: PackageServer,
  payloadFiles: string[],
  stopAt: number | null,
): Promise<{ signal: NodeJS.Signals | null; acks: SyncAck[]; steps: FsStep[] }> {
  // Under vitest this file is test/support/…, compiled it is dist/test/support/…: the child runs the
  // compiled preload and product either way.
  const root = path.basename(path.dirname(REPO_ROOT)) === "dist" ? path.dirname(REPO_ROOT) : REPO_ROOT;
  const logFile = `${t.home}.steps.jsonl`;
  await fs.rm(logFile, { force: true });
  const child = spawn(
    process.execPath,
    [
      "--import",
      pathToFileURL(path.join(root, "dist/test/support/kill-at-step.js")).href,
      path.join(root, "test/fixtures/capabilities/sync-child.mjs"),
      ...payloadFiles,
    ],
    {
      env: {
        ...t.env,
        BACKEND_URL: server.backendUrl,
        DEVICE_TOKEN: server.token,
        SYNC_CONCURRENCY: "1",
        GATEHOUSE_STEP_ROOT: t.home,
        GATEHOUSE_STEP_LOG: logFile,
        ...(stopAt !== null && { GATEHOUSE_KILL_AT_STEP: String(stopAt) }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (c, s) => resolve([c, s]));
  });
  if (code !== 0 && signal === null) throw new Error(`sync child failed (${code}): ${stderr}`);
  const acks = stdout
    .split("\n")
    .filter((line) => line.startsWith('{"ack"'))
    .map((line) => (JSON.parse(line) as { ack: SyncAck }).ack);
  const steps = (await fs.readFile(logFile, "utf8").catch(() => ""))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FsStep & { stopped?: boolean })
    .filter((s) => !s.stopped);
  await fs.rm(logFile, { force: true });
  return { signal, acks, steps };
}

/**
 * Where crash homes go: a memory file system where there is one (Linux's /dev/shm). A kill loses no
 * written data on any file system (the kernel keeps it), so the disk adds nothing to what these tests
 * check, only time: each kill point rebuilds a home and its start-up fsyncs.
 */
function crashHomeParent(): string {
  try {
    fsSync.accessSync("/dev/shm", fsSync.constants.W_OK);
    return fsSync.statSync("/dev/shm").isDirectory() ? "/dev/shm" : os.tmpdir();
  } catch {
    return os.tmpdir();
  }
}

/** A fresh home holding only the user's files. */
export async function freshHome(prefix: string): Promise<TempHome> {
  const t = await makeTempHome(prefix, {}, crashHomeParent());
  seedUserFiles(t.paths);
  return t;
}

/**
 * The committed states of a scenario, from a clean run: after start-up alone, then after each sync
 * (each followed by a restart: start-up after a finished sync must change nothing).
 */
export async function committedStates(
  server: PackageServer,
  payloads: unknown[],
  variant: { noLinks?: boolean } = {},
): Promise<{ states: DiskState[]; problems: string[] }> {
  const t = await freshHome("gatehouse-crash-clean-");
  const problems: string[] = [];
  try {
    const states: DiskState[] = [];
    const sync = makeSync(t.paths, server, variant);
    await sync.startup();
    states.push(diskState(t));
    for (const [i, payload] of payloads.entries()) {
      const ack = await sync.applySync(payload);
      if (!isSuccess(ack)) problems.push(`clean sync ${i + 1} failed: ${JSON.stringify(ack)}`);
      const finished = diskState(t);
      await makeSync(t.paths, server, variant).startup();
      states.push(diskState(t));
      const changed = stateDifferences(states.at(-1)!, finished);
      if (changed.length > 0)
        problems.push(`start-up after clean sync ${i + 1} changed: ${changed.join("; ")}`);
    }
    return { states, problems };
  } finally {
    await t.cleanup();
  }
}

function isSuccess(ack: SyncAck): boolean {
  return "errors" in ack && ack.success;
}

/**
 * The property at one kill point, on the disk the kill left in `t`: the manifest still loads; the
 * next start alone leaves a committed state (the interrupted sync undone, or completed); with
 * `nextSync`, the last payload synced then leaves exactly the clean end state, the user's files
 * included. Returns the problems found (none when the property holds).
 */
export async function checkRecovery(
  t: TempHome,
  server: PackageServer,
  payloads: unknown[],
  committed: DiskState[],
  interrupted: number,
  options: {
    nextSync: boolean;
    /**
     * Start states whose next sync already came out clean. A disk identical in everything compared
     * here (timestamps, made-up names and empty folders aside, none of which a sync's outcome depends
     * on) syncs identically, so the next sync runs only from a start state not in the set; a clean one
     * adds its state.
     */
    syncedFrom?: Set<string>;
    noLinks?: boolean;
    killStartupAt?: number;
  },
): Promise<string[]> {
  const problems: string[] = [];
  const manifest = await loadManifest(t.paths.capabilityManifest);
  if (!manifest.ok) problems.push(`manifest does not load after the kill: ${manifest.error}`);
  if (options.killStartupAt !== undefined) {
    // killed again while repairing: the start after that must still come out right
    await startupStopped(t, server, options.killStartupAt, options.noLinks);
  }
  const log: string[] = [];
  const restarted = makeSync(t.paths, server, { log, noLinks: options.noLinks });
  await restarted.startup();
  const afterStart = diskState(t);
  const candidates = [committed[interrupted], committed[interrupted + 1]].filter(
    (s): s is DiskState => s !== undefined,
  );
  const gaps = candidates.map((s) => stateDifferences(afterStart, s));
  if (!gaps.some((g) => g.length === 0)) {
    const nearest = gaps.sort((a, b) => a.length - b.length)[0]!;
    problems.push(`start-up left neither committed state: ${nearest.join("; ")}`);
  }
  const startKey = JSON.stringify(afterStart);
  if (options.nextSync && !options.syncedFrom?.has(startKey)) {
    const ack = await restarted.applySync(payloads.at(-1));
    if (!isSuccess(ack)) problems.push(`next sync failed: ${JSON.stringify(ack)}`);
    const afterSync = stateDifferences(diskState(t), committed.at(-1)!);
    if (afterSync.length > 0) problems.push(`next sync differs from a clean one: ${afterSync.join("; ")}`);
    else if (problems.length === 0) options.syncedFrom?.add(startKey);
  }
  if (problems.length > 0 && log.length > 0) problems.push(`log: ${log.slice(0, 4).join(" | ")}`);
  return problems;
}

export function describeStep(step: FsStep | undefined): string {
  if (!step) return "(after the last step)";
  return `${step.op} ${step.path}${step.to !== undefined ? ` -> ${step.to}` : ""}`;
}
