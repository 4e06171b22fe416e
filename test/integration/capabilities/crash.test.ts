// Crash safety (task acceptance): a child process running a sync is SIGKILLed at random points 20
// times; after each kill the manifest still parses; a final sync then leaves exactly the state a
// clean sync leaves (store tree, runtime links, manifest minus timestamps and revision, registry).
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadManifest } from "../../../src/core/capabilities/io/manifest.js";
import { pluginZip, skillZip } from "../../support/archives.js";
import { REPO_ROOT } from "../../support/cli.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { publishPlugin, publishSkill, snapshotTree } from "./sync-fixture.js";

const CHILD = path.join(REPO_ROOT, "test/fixtures/capabilities/sync-child.mjs");

/** Deterministic pseudo-random numbers, so a failure can be replayed from the printed seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  ms: number;
}

function runChild(
  home: TempHome,
  server: PackageServer,
  payloadFile: string,
  kill?: { afterLines?: number; afterMs?: number },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CHILD, payloadFile], {
      env: { ...home.env, BACKEND_URL: server.backendUrl, DEVICE_TOKEN: server.token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    let buffer = "";
    let stderr = "";
    const timer = kill?.afterMs !== undefined ? setTimeout(() => child.kill("SIGKILL"), kill.afterMs) : null;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      lines.push(...parts);
      if (kill?.afterLines !== undefined && lines.length >= kill.afterLines) child.kill("SIGKILL");
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code !== 0 && signal === null) reject(new Error(`sync child failed (${code}): ${stderr}`));
      else resolve({ code, signal, lines, ms: Date.now() - started });
    });
  });
}

/** Replaces the home folder in every string so two homes compare equal. */
function relativise(value: unknown, home: string): unknown {
  if (typeof value === "string") return value.split(home).join("~");
  if (Array.isArray(value)) return value.map((v) => relativise(v, home));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = relativise((value as Record<string, unknown>)[key], home);
    return out;
  }
  return value;
}

const TIMESTAMP_KEYS = new Set(["updated_at", "last_sync_at", "revision", "installedAt", "lastUpdated"]);
function withoutTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimestamps);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !TIMESTAMP_KEYS.has(k))
        .map(([k, v]) => [k, withoutTimestamps(v)]),
    );
  }
  return value;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function readJsonIfAny(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as unknown;
  } catch {
    return null;
  }
}

/** Everything a sync is responsible for, in a form that does not depend on the home folder or the clock. */
async function observableState(t: TempHome) {
  const skip = (rel: string) =>
    rel === "installed_plugins.json" ||
    rel === "plugins/installed_plugins.json" ||
    rel === "plugins/known_marketplaces.json" ||
    rel === "settings.json" ||
    rel === "config.toml" || // compared below without the home folder
    rel.endsWith("/.gatehouse-copy"); // names the store folder by its absolute path
  const tree = async (root: string) => relativise(await snapshotTree(root, { skip }), t.home);
  return {
    store: await tree(t.paths.capabilityStore),
    claude: await tree(t.paths.claudeHome),
    codex: await tree(t.paths.codexHome),
    codexConfig: (
      await fs.readFile(path.join(t.paths.codexHome, "config.toml"), "utf8").catch(() => "")
    ).replaceAll(t.home, "~"),
    capabilities: (await fs.readdir(t.paths.capabilitiesDir)).sort(),
    manifest: withoutTimestamps(relativise(await readJsonIfAny(t.paths.capabilityManifest), t.home)),
    registry: withoutTimestamps(
      relativise(
        await readJsonIfAny(path.join(t.paths.claudeHome, "plugins/installed_plugins.json")),
        t.home,
      ),
    ),
    // a marketplace record says when it was registered (lastUpdated): equal but for that time
    marketplaces: withoutTimestamps(
      relativise(
        await readJsonIfAny(path.join(t.paths.claudeHome, "plugins/known_marketplaces.json")),
        t.home,
      ),
    ),
    settings: relativise(await readJsonIfAny(path.join(t.paths.claudeHome, "settings.json")), t.home),
  };
}

describe("crash safety", () => {
  let server: PackageServer;
  let clean: TempHome;
  let crashed: TempHome;
  let payloads: string[];
  beforeAll(async () => {
    server = await startPackageServer();
    clean = await makeTempHome("gatehouse-crash-clean-");
    crashed = await makeTempHome("gatehouse-crash-");
    const extra = (tag: string) =>
      Array.from({ length: 20 }, (_, i) => ({
        name: `ref/${tag}-${i}.md`,
        data: `${tag} ${i}\n`.repeat(50),
      }));
    const skillsV1 = [];
    const skillsV2 = [];
    for (let i = 0; i < 30; i++) {
      skillsV1.push(
        publishSkill(server, {
          id: 100 + i,
          name: `skill-${i}`,
          bytes: await skillZip(`skill-${i}`, { extra: extra("v1") }),
          hash: `sha256:v1-${i}`,
        }),
      );
    }
    for (let i = 10; i < 30; i++) {
      // skills 20–29 change content in P2 under new ids; 10–19 stay as they are
      const id = i < 20 ? 100 + i : 200 + i;
      const bytes =
        i < 20
          ? await skillZip(`skill-${i}`, { extra: extra("v1") })
          : await skillZip(`skill-${i}`, { extra: extra("v2") });
      skillsV2.push(
        publishSkill(server, {
          id,
          name: `skill-${i}`,
          bytes,
          hash: i < 20 ? `sha256:v1-${i}` : `sha256:v2-${i}`,
        }),
      );
    }
    const plugins = async (from: number, to: number, version: string) => {
      const out = [];
      for (let i = from; i < to; i++) {
        const v = i === 3 ? version : "1.0.0";
        out.push(
          publishPlugin(server, {
            id: 10 + i,
            name: `plugin-${i}`,
            marketplace: "mp",
            version: v,
            bytes: await pluginZip(`plugin-${i}`, { version: v }),
          }),
        );
      }
      return out;
    };
    const p1 = {
      mode: "replace",
      skills: skillsV1.slice(0, 20),
      plugins: await plugins(0, 4, "1.0.0"),
      mcps: [{ installed_mcp_id: 1, name: "one", server: {} }],
    };
    const p2 = {
      mode: "replace",
      skills: skillsV2,
      plugins: await plugins(2, 6, "2.0.0"),
      mcps: [{ installed_mcp_id: 2, name: "two", server: { url: "u" } }],
    };
    payloads = [path.join(crashed.home, "p1.json"), path.join(crashed.home, "p2.json")];
    await fs.writeFile(payloads[0]!, JSON.stringify(p1));
    await fs.writeFile(payloads[1]!, JSON.stringify(p2));
  });
  afterAll(async () => {
    await server.close();
    await clean.cleanup();
    await crashed.cleanup();
  });

  it(
    "after 20 SIGKILLs at random points the manifest always parses and a final sync equals a clean one",
    { timeout: 240_000 },
    async () => {
      const p2 = payloads[1]!;
      await fs.copyFile(p2, path.join(clean.home, "p2.json"));
      const reference = await runChild(clean, server, path.join(clean.home, "p2.json"));
      expect(JSON.parse(reference.lines.at(-1) ?? "{}")).toMatchObject({ ack: { success: true } });
      const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
      const random = mulberry32(seed);
      const kills: string[] = [];
      // 20 runs that really were killed; a run that finished before its kill point does not count
      for (let attempt = 0; kills.length < 20 && attempt < 60; attempt++) {
        const payload = payloads[random() < 0.5 ? 0 : 1]!;
        const kill =
          random() < 0.5
            ? { afterLines: 1 + Math.floor(random() * 50) }
            : { afterMs: Math.floor(random() * reference.ms) };
        const run = await runChild(crashed, server, payload, kill);
        if (run.signal === "SIGKILL")
          kills.push(`${path.basename(payload)} ${JSON.stringify(kill)} after ${run.lines.length} lines`);
        const text = await fs.readFile(crashed.paths.capabilityManifest, "utf8").catch(() => null);
        if (text !== null)
          expect({ seed, attempt, manifest: parses(text) }).toEqual({ seed, attempt, manifest: true });
        expect((await loadManifest(crashed.paths.capabilityManifest)).ok).toBe(true);
      }
      expect(kills, `seed ${seed}`).toHaveLength(20);
      const final = await runChild(crashed, server, p2);
      expect(JSON.parse(final.lines.at(-1) ?? "{}"), kills.join("\n")).toMatchObject({
        ack: { success: true },
      });
      const [got, want] = await Promise.all([observableState(crashed), observableState(clean)]);
      expect({ seed, ...got }).toEqual({ seed, ...want });
    },
  );
});
