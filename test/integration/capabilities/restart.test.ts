// Issue 18: a sync killed (SIGKILL) half-way through applying a replace, then a restart. The child
// process kills itself at an exact progress event (test/fixtures/capabilities/sync-child.mjs), so
// each case starts from a known torn state; the restart is the real start-up of CapabilitySync.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildCapabilityReport,
  CapabilitySync,
  loadManifest,
  type SyncItemsAck,
} from "../../../src/core/capabilities/index.js";
import { silentLogger } from "../../../src/core/log.js";
import { pluginZip, skillZip } from "../../support/archives.js";
import { REPO_ROOT } from "../../support/cli.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { codexPluginLinks, exists, publishPlugin, publishSkill, readJson } from "./sync-fixture.js";
import { httpPackageDownloader } from "../../../src/device/package-download.js";

const CHILD = path.join(REPO_ROOT, "test/fixtures/capabilities/sync-child.mjs");

function runChild(t: TempHome, server: PackageServer, payload: string, killAt?: string) {
  return new Promise<{ signal: NodeJS.Signals | null; lines: string[] }>((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, payload], {
      env: {
        ...t.env,
        BACKEND_URL: server.backendUrl,
        DEVICE_TOKEN: server.token,
        ...(killAt && { KILL_AT: killAt }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0 && signal === null) reject(new Error(`sync child failed (${code}): ${err}`));
      else resolve({ signal, lines: out.trim().split("\n") });
    });
  });
}

/** What a user (and the backend) can see: links, manifest entries, the report. */
async function observe(t: TempHome) {
  const loaded = await loadManifest(t.paths.capabilityManifest);
  if (!loaded.ok) throw new Error(loaded.error);
  const manifest = loaded.manifest;
  const linkOf = (p: string) => fs.readlink(p).catch(() => null);
  const unlinked: string[] = [];
  for (const [name, entry] of Object.entries(manifest.skills)) {
    for (const root of [t.paths.claudeHome, t.paths.codexHome]) {
      const target = await linkOf(path.join(root, "skills", name));
      if (target !== entry.store_path || !(await exists(path.join(target, "SKILL.md")))) unlinked.push(name);
    }
  }
  const strayLinks: string[] = [];
  for (const name of await fs.readdir(path.join(t.paths.claudeHome, "skills")).catch(() => [] as string[])) {
    const target = await linkOf(path.join(t.paths.claudeHome, "skills", name));
    if (target !== null && !Object.hasOwn(manifest.skills, name)) strayLinks.push(name);
  }
  const report = await buildCapabilityReport(t.paths);
  return {
    manifestSkills: Object.keys(manifest.skills).sort(),
    manifestPlugins: Object.keys(manifest.plugins).sort(),
    unlinked: [...new Set(unlinked)].sort(),
    strayLinks: strayLinks.sort(),
    localUser: report.skills.filter((s) => s.source === "local_user").map((s) => s.name),
  };
}

describe("a replace killed half-way, then a restart", () => {
  let server: PackageServer;
  let payloadA: Record<string, unknown>;
  let payloadB: Record<string, unknown>;
  const namesA = Array.from({ length: 25 }, (_, i) => `a-${i}`);
  beforeAll(async () => {
    server = await startPackageServer();
    const skills = async (prefix: string, base: number) =>
      Promise.all(
        Array.from({ length: 25 }, async (_, i) =>
          publishSkill(server, {
            id: base + i,
            name: `${prefix}-${i}`,
            bytes: await skillZip(`${prefix}-${i}`),
          }),
        ),
      );
    payloadA = {
      mode: "replace",
      skills: await skills("a", 100),
      plugins: [
        publishPlugin(server, { id: 1, name: "pa", marketplace: "mp", bytes: await pluginZip("pa") }),
      ],
    };
    payloadB = {
      mode: "replace",
      skills: await skills("b", 200),
      plugins: [
        publishPlugin(server, { id: 2, name: "pb", marketplace: "mp", bytes: await pluginZip("pb") }),
      ],
    };
  });
  afterAll(() => server.close());

  it.each([
    ["remove:10", "ten removals in"],
    ["install:10", "after the removals, ten installs in"],
    ["write:1", "after every install, before the registry and the manifest"],
  ])(
    "killed at %s (%s): start-up restores what the manifest says before anything is reported",
    { timeout: 120_000 },
    async (killAt) => {
      const t = await makeTempHome("gatehouse-restart-");
      try {
        const fileA = path.join(t.home, "a.json");
        const fileB = path.join(t.home, "b.json");
        await fs.writeFile(fileA, JSON.stringify(payloadA));
        await fs.writeFile(fileB, JSON.stringify(payloadB));
        const first = await runChild(t, server, fileA);
        expect(JSON.parse(first.lines.at(-1)!)).toMatchObject({ ack: { success: true } });
        const killed = await runChild(t, server, fileB, killAt);
        expect(killed.signal).toBe("SIGKILL");

        // The torn state the kill left: the manifest still lists A, the links do not agree with it.
        const torn = await observe(t);
        expect(torn.manifestSkills).toEqual([...namesA].sort());
        expect(torn.unlinked.length + torn.strayLinks.length).toBeGreaterThan(0);

        // The restart: start-up runs before the device connects, so before the first heartbeat.
        const sync = new CapabilitySync({
          download: httpPackageDownloader(),
          paths: t.paths,
          backendUrl: () => server.backendUrl,
          deviceToken: async () => server.token,
          logger: silentLogger,
        });
        await sync.startup();
        const restored = await observe(t);
        expect(restored).toEqual({
          manifestSkills: [...namesA].sort(),
          manifestPlugins: ["pa@mp"],
          unlinked: [],
          strayLinks: [],
          localUser: [],
        });
        const registry = await readJson<{ plugins: Record<string, unknown> }>(
          path.join(t.paths.claudeHome, "plugins", "installed_plugins.json"),
        );
        expect(Object.keys(registry.plugins)).toEqual(["pa@gatehouse"]);
        expect(await codexPluginLinks(t.paths.codexHome)).toEqual(["pa-mp"]);

        // A following merge acks success, and then every manifest skill really has its links.
        const one = (payloadB.skills as unknown[])[0];
        const ack = (await sync.applySync({ mode: "merge", skills: [one] })) as SyncItemsAck;
        expect(ack.success).toBe(true);
        const after = await observe(t);
        expect(after.unlinked).toEqual([]);
        expect(after.manifestSkills).toEqual([...namesA, "b-0"].sort());
      } finally {
        await t.cleanup();
      }
    },
  );
});
