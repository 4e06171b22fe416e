// Issue 18 through the real `gatehouse serve` and the real test backend: a runner killed (SIGKILL)
// in the middle of a replace sync comes back with links, registry and manifest in agreement before
// its first heartbeat; SIGTERM does not wait for a sync stuck in a download; and a plugin the backend
// syncs is what the real Claude Code and Codex CLIs list, until a replace without it unregisters it.
import { watch } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadManifest } from "../../../src/core/capabilities/index.js";
import { defaultCatalogue, generatedSkills } from "../../../src/demo-backend/catalogue.js";
import { startTestBackend, TestBackend } from "../../../src/demo-backend/server.js";
import { skillZip } from "../../support/archives.js";
import { CLAUDE, CODEX } from "../../support/agent-clis.js";
import { programOutput } from "../../support/programs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startServe, type ServeProcess } from "../approval-server/serve-process.js";
import { DEVICE_ID, TOKEN, taskEnv, writeDeviceConfig } from "../tasks/harness.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const COUNT = 80;
const setA = generatedSkills(COUNT, { prefix: "a", firstId: 5_000 });
const setB = generatedSkills(COUNT, { prefix: "b", firstId: 6_000 });
const idsOf = (skills: typeof setA) => ({
  skills: skills.map((s) => s.installed_skill_id),
  plugins: [],
  mcps: [],
});

async function runner(t: TempHome, backend: TestBackend): Promise<ServeProcess> {
  const serve = await startServe(taskEnv(t));
  cleanups.push(() => serve.stop("SIGKILL"));
  await waitFor(() => backend.isOnline(DEVICE_ID), { what: "the runner to register", timeoutMs: 20_000 });
  return serve;
}

/** Manifest skills whose links do not lead to their store folder, and links no manifest entry records. */
async function disagreement(t: TempHome): Promise<{ unlinked: string[]; stray: string[] }> {
  const loaded = await loadManifest(t.paths.capabilityManifest);
  if (!loaded.ok) throw new Error(loaded.error);
  const unlinked: string[] = [];
  for (const [name, entry] of Object.entries(loaded.manifest.skills)) {
    for (const root of [t.paths.claudeHome, t.paths.codexHome]) {
      const target = await fs.readlink(path.join(root, "skills", name)).catch(() => null);
      if (target !== entry.store_path) unlinked.push(`${path.basename(root)}/${name}`);
    }
  }
  const stray: string[] = [];
  for (const name of await fs.readdir(path.join(t.paths.claudeHome, "skills")).catch(() => [] as string[])) {
    const isLink = (await fs.lstat(path.join(t.paths.claudeHome, "skills", name))).isSymbolicLink();
    if (isLink && !Object.hasOwn(loaded.manifest.skills, name)) stray.push(name);
  }
  return { unlinked, stray };
}

/** Synced from `claude-plugins-official`: Codex knows it by that key, Claude Code as `context7@gatehouse`. */
const PLUGIN = "context7@claude-plugins-official";
const CLAUDE_KEY = "context7@gatehouse";

/** What the real agent CLIs list as installed for this home (offline config commands). */
async function agentPlugins(t: TempHome) {
  const options = {
    cwd: t.home,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: t.home,
      CLAUDE_CONFIG_DIR: t.paths.claudeHome,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CODEX_HOME: t.paths.codexHome,
    },
  };
  const claude = JSON.parse(await programOutput(CLAUDE, ["plugin", "list", "--json"], options)) as Array<{
    id: string;
    errors?: string[];
  }>;
  const codex = JSON.parse(await programOutput(CODEX, ["plugin", "list", "--json"], options)) as {
    installed: Array<{ pluginId: string; installed: boolean; enabled: boolean }>;
  };
  return {
    claude: claude.filter((p) => p.id === CLAUDE_KEY),
    codex: codex.installed.filter((p) => p.pluginId === PLUGIN),
  };
}

describe("gatehouse serve and capability sync", () => {
  it(
    "a plugin synced through the runner is listed by the real Claude Code and Codex, and a replace without it unregisters it",
    { timeout: 180_000 },
    async () => {
      const backend = await startTestBackend({
        token: TOKEN,
        installed: { skills: [], plugins: [9], mcps: [] },
      });
      cleanups.push(() => backend.close());
      const t = await makeTempHome("gatehouse-serve-plugin-");
      cleanups.push(() => t.cleanup());
      await writeDeviceConfig(t, backend.url);
      await runner(t, backend);
      await waitFor(() => (backend.device(DEVICE_ID)?.syncAcks.length ?? 0) > 0, {
        what: "the replace sync after registration",
        timeoutMs: 60_000,
      });
      expect(backend.device(DEVICE_ID)!.syncAcks.at(-1)).toMatchObject({ success: true });

      const synced = await agentPlugins(t);
      expect(synced.claude).toHaveLength(1);
      expect(synced.claude[0]!.errors ?? []).toEqual([]);
      expect(synced.codex).toEqual([expect.objectContaining({ installed: true, enabled: true })]);

      const ack = await backend.syncCapabilities(
        DEVICE_ID,
        backend.syncPayload(DEVICE_ID, { skills: [], plugins: [], mcps: [] }, "replace"),
      );
      expect(ack).toMatchObject({ success: true });
      expect(await agentPlugins(t)).toEqual({ claude: [], codex: [] });
    },
  );

  it(
    "killed with SIGKILL during a replace, the restarted runner's first heartbeat reports only what is really installed",
    { timeout: 240_000 },
    async () => {
      const catalogue = defaultCatalogue();
      catalogue.skills.push(...setA, ...setB);
      const backend = await startTestBackend({ token: TOKEN, catalogue, installed: idsOf(setA) });
      cleanups.push(() => backend.close());
      let torn: { unlinked: string[]; stray: string[] } | null = null;
      let t!: TempHome;
      // The kill lands wherever the runner is when the first link changes; it is repeated (with a
      // fresh home) until it landed inside the apply stage, so the restart has something to repair.
      for (let attempt = 0; attempt < 4 && !torn; attempt++) {
        t = await makeTempHome("gatehouse-serve-kill-");
        cleanups.push(() => t.cleanup());
        await writeDeviceConfig(t, backend.url);
        backend.behaviour.syncOnRegister = true;
        const device = () => backend.device(DEVICE_ID);
        const acks = device()?.syncAcks.length ?? 0;
        const serve = await runner(t, backend);
        await waitFor(() => (device()?.syncAcks.length ?? 0) > acks, {
          what: "the replace sync after registration",
          timeoutMs: 60_000,
        });
        expect(device()!.syncAcks.at(-1)).toMatchObject({ success: true });

        const watcher = watch(path.join(t.paths.claudeHome, "skills"), () => serve.child.kill("SIGKILL"));
        void backend
          .syncCapabilities(DEVICE_ID, backend.syncPayload(DEVICE_ID, idsOf(setB), "replace"))
          .catch(() => undefined);
        await serve.exited();
        watcher.close();
        const found = await disagreement(t);
        if (found.unlinked.length + found.stray.length > 0) torn = found;
      }
      expect(torn, "a kill that landed inside the apply stage").not.toBeNull();

      // The restart, with no replace sync after registration: only start-up can repair anything.
      backend.behaviour.syncOnRegister = false;
      const beats = backend.device(DEVICE_ID)!.heartbeats.length;
      await runner(t, backend);
      await waitFor(() => backend.device(DEVICE_ID)!.heartbeats.length > beats, {
        what: "the first heartbeat",
      });
      const first = backend.device(DEVICE_ID)!.heartbeats[beats]!;
      const reported = (first.capabilities as { skills: Array<{ name: string; source: string }> }).skills;
      expect(reported.filter((s) => s.source === "local_user")).toEqual([]);
      expect(await disagreement(t)).toEqual({ unlinked: [], stray: [] });
      const loaded = await loadManifest(t.paths.capabilityManifest);
      expect(loaded.ok && Object.keys(loaded.manifest.skills).sort()).toEqual(
        reported.map((s) => s.name).sort(),
      );

      // A merge afterwards acks success and every manifest skill has its links.
      const ack = await backend.syncCapabilities(
        DEVICE_ID,
        backend.syncPayload(DEVICE_ID, idsOf(setB.slice(0, 1)), "merge"),
      );
      expect(ack).toMatchObject({ success: true });
      expect(await disagreement(t)).toEqual({ unlinked: [], stray: [] });
    },
  );

  it("SIGTERM stops the runner while a sync waits on a download that never finishes, and nothing changed", async () => {
    const backend = await startTestBackend({
      token: TOKEN,
      installed: { skills: [1336], plugins: [], mcps: [] },
    });
    cleanups.push(() => backend.close());
    const t = await makeTempHome("gatehouse-serve-term-");
    cleanups.push(() => t.cleanup());
    await writeDeviceConfig(t, backend.url);
    const serve = await runner(t, backend);
    await waitFor(() => (backend.device(DEVICE_ID)?.syncAcks.length ?? 0) > 0, {
      what: "the replace sync after registration",
      timeoutMs: 60_000,
    });
    const manifest = await fs.readFile(t.paths.capabilityManifest, "utf8");
    const stalledPath = TestBackend.skillDownloadPath(42, "default");
    backend.packages!.serve(stalledPath, await skillZip("image-gen"), { stall: true, origin: "backend" });
    void backend
      .syncCapabilities(
        DEVICE_ID,
        backend.syncPayload(DEVICE_ID, { skills: [1401], plugins: [], mcps: [] }, "replace"),
      )
      .catch(() => undefined);
    await waitFor(() => backend.packages!.requests.some((r) => r.path === stalledPath), {
      what: "the download to start",
    });
    const exit = serve.stop("SIGTERM");
    let exited = false;
    void exit.then(() => (exited = true));
    // The download would hold a waiting runner for its 120 s timeout.
    await waitFor(() => exited, {
      what: "the runner to exit without waiting for the download",
      timeoutMs: 20_000,
    });
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(await fs.readFile(t.paths.capabilityManifest, "utf8")).toBe(manifest);
    expect(await fs.readdir(path.join(t.paths.capabilityStore, "skills"))).toEqual(["1336-default-browser"]);
    expect(await fs.readlink(path.join(t.paths.claudeHome, "skills", "browser"))).toBe(
      path.join(t.paths.capabilityStore, "skills", "1336-default-browser"),
    );
  });
});
