// Crash safety of capability sync (issue 30) as a property over every step, not a sample. One process
// life — start-up, a replace installing v1 of skills, plugins and MCP servers, then a replace that
// switches, disables, removes and adds — is recorded step by step (test/support/fs-steps.ts: every
// file-system change under the home, in an order that never varies). For every step N the disk a kill
// just before it leaves is rebuilt by replaying steps 1…N-1 of the recording, then the real start-up
// runs: it must leave one of the two states a finished sync leaves around the kill (the interrupted
// sync undone, or done), the user's own files included; and the next sync must equal a clean one.
// That sync runs from each distinct state start-up leaves (a disk identical in everything compared
// syncs identically) and, as a check on that, at every tenth point whatever the state.
// Replaying instead of re-running the product up to each step is what makes every step affordable;
// the test also proves a replay faithful: a child process SIGKILLed at a step (kill-at-step.ts)
// takes the same steps and leaves the same disk.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadManifest } from "../../../src/core/capabilities/index.js";
import { startPackageServer, type PackageServer } from "../../../src/demo-backend/package-server.js";
import {
  checkRecovery,
  committedStates,
  describeStep,
  diskState,
  FIXED_SCENARIO,
  freshHome,
  interruptedSync,
  makeSync,
  publishScenario,
  replayedKill,
  runKilledChild,
  runStopped,
  stateDifferences,
  type DiskState,
  type StoppedRun,
} from "../../support/capability-crash.js";
import type { FsStep } from "../../support/fs-steps.js";
import type { TempHome } from "../../support/temp-home.js";

/** A step as two runs in different homes both describe it (made-up names as one). */
function sameStep(step: FsStep): string {
  return describeStep(step).replace(/[0-9a-f]{12,16}/g, "*");
}

describe("a capability sync killed at any file-system step", () => {
  let server: PackageServer;
  let payloads: unknown[];
  let committed: DiskState[];
  let home: TempHome;
  let recorded: StoppedRun;
  let payloadDir: string;
  let payloadFiles: string[];

  beforeAll(async () => {
    server = await startPackageServer();
    payloads = await publishScenario(server, FIXED_SCENARIO);
    const clean = await committedStates(server, payloads);
    expect(clean.problems).toEqual([]);
    committed = clean.states;
    home = await freshHome("gatehouse-crash-");
    recorded = await runStopped(home, server, payloads, null);
    expect(recorded.acks.map((ack) => ("errors" in ack ? ack.success : ack))).toEqual([true, true]);
    payloadDir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-crash-payloads-"));
    payloadFiles = [];
    for (const [i, payload] of payloads.entries()) {
      const file = path.join(payloadDir, `p${i + 1}.json`);
      await fs.writeFile(file, JSON.stringify(payload));
      payloadFiles.push(file);
    }
  });
  afterAll(async () => {
    await server.close();
    await home.cleanup();
    await fs.rm(payloadDir, { recursive: true, force: true });
  });

  /** The first step of the second sync (the switch) matching `test`. */
  const stepOfSwitch = (test: (step: FsStep) => boolean): FsStep => {
    const step = recorded.steps.slice(recorded.syncEnds[0]).find(test);
    if (!step) throw new Error("the scenario no longer takes that step");
    return step;
  };

  it(
    "the next start leaves the sync undone or done and the next sync equals a clean one, at every kill point",
    { timeout: 900_000 },
    async () => {
      const total = recorded.steps.length;
      expect(total).toBeGreaterThan(150);
      const failures: string[] = [];
      const syncedFrom = new Set<string>();
      for (let n = 1; n <= total; n++) {
        replayedKill(home, recorded, n);
        const problems = await checkRecovery(
          home,
          server,
          payloads,
          committed,
          interruptedSync(recorded, n),
          {
            nextSync: true,
            // every tenth point syncs whatever state start-up left: a check on skipping identical ones
            syncedFrom: n % 10 === 0 ? undefined : syncedFrom,
          },
        );
        if (problems.length > 0)
          failures.push(
            `kill before step ${n} (${describeStep(recorded.steps[n - 1])}): ${problems.join("; ")}`,
          );
      }
      expect(failures).toEqual([]);
    },
  );

  it(
    "a child SIGKILLed at a step has taken the recorded steps and left the disk a replay leaves",
    { timeout: 300_000 },
    async () => {
      const swap = stepOfSwitch(
        (s) => s.op === "rename" && s.to === ".wegent-executor/capabilities/store/skills/2-default-bump",
      );
      const registry = stepOfSwitch(
        (s) => s.op === "rename" && s.to === ".claude/plugins/installed_plugins.json",
      );
      const points = [
        Math.floor(recorded.syncEnds[0]! / 3),
        swap.n + 1,
        registry.n + 1,
        recorded.steps.length,
      ];
      for (const n of points) {
        const t = await freshHome("gatehouse-crash-child-");
        try {
          const child = await runKilledChild(t, server, payloadFiles, n);
          expect({ n, signal: child.signal }).toEqual({ n, signal: "SIGKILL" });
          expect(child.steps.map(sameStep)).toEqual(recorded.steps.slice(0, n - 1).map(sameStep));
          replayedKill(home, recorded, n);
          expect({ n, differences: stateDifferences(diskState(t), diskState(home)) }).toEqual({
            n,
            differences: [],
          });
        } finally {
          await t.cleanup();
        }
      }
    },
  );

  it(
    "a kill just after a switched plugin's old Codex copy lost its marker no longer keeps the old version (issue 30: plugin-3 at 1.0.0 instead of 2.0.0)",
    { timeout: 120_000 },
    async () => {
      // The marker of pswitch 1.0.0's copy in Codex's cache: deleted where the copy was, the folder
      // left without it looked like a plugin Codex installed itself, and Gatehouse kept out of it.
      const marker = stepOfSwitch(
        (s) =>
          s.op === "unlink" &&
          s.path.startsWith(".codex/plugins/cache/") &&
          s.path.endsWith("/.gatehouse-copy"),
      );
      const t = await freshHome("gatehouse-crash-codex-");
      try {
        const child = await runKilledChild(t, server, payloadFiles, marker.n + 1);
        expect(child.signal).toBe("SIGKILL");
        const sync = makeSync(t.paths, server);
        await sync.startup();
        expect(await sync.applySync(payloads.at(-1))).toMatchObject({ success: true });
        const cache = path.join(t.paths.codexHome, "plugins", "cache", "mp", "pswitch");
        expect(await fs.readdir(cache)).toEqual(["2.0.0"]);
        expect(await fs.readFile(path.join(t.paths.codexHome, "config.toml"), "utf8")).toContain(
          '[plugins."pswitch@mp"]',
        );
        expect(stateDifferences(diskState(t), committed.at(-1)!)).toEqual([]);
      } finally {
        await t.cleanup();
      }
    },
  );

  it("a skill whose new content already took its folder has its old content back after the next start", async () => {
    const swap = stepOfSwitch(
      (s) => s.op === "rename" && s.to === ".wegent-executor/capabilities/store/skills/2-default-bump",
    );
    replayedKill(home, recorded, swap.n + 1);
    await makeSync(home.paths, server).startup();
    const skill = await fs.readFile(path.join(home.paths.claudeHome, "skills", "bump", "SKILL.md"), "utf8");
    expect(skill).toContain("bump rev 1");
    const manifest = await loadManifest(home.paths.capabilityManifest);
    expect(manifest.ok && manifest.manifest.revision).toBe(1);
  });

  it("Claude registry keys and flags written before the manifest are put back at the next start", async () => {
    const settings = stepOfSwitch((s) => s.op === "rename" && s.to === ".claude/settings.json");
    replayedKill(home, recorded, settings.n + 1);
    type Registry = { plugins: Record<string, Array<Record<string, string>>> };
    type Settings = { enabledPlugins: Record<string, boolean> };
    const read = async <T>(file: string) => JSON.parse(await fs.readFile(file, "utf8")) as T;
    const registryFile = path.join(home.paths.claudeHome, "plugins", "installed_plugins.json");
    const settingsFile = path.join(home.paths.claudeHome, "settings.json");
    expect((await read<Registry>(registryFile)).plugins["pswitch@gatehouse"]?.[0]?.version).toBe("2.0.0");
    expect((await read<Settings>(settingsFile)).enabledPlugins["pflag@gatehouse"]).toBe(false);
    await makeSync(home.paths, server).startup();
    const registry = await read<Registry>(registryFile);
    expect(registry.plugins["pswitch@gatehouse"]?.[0]).toMatchObject({
      version: "1.0.0",
      installPath: path.join(home.paths.claudeHome, "plugins", "cache", "gatehouse", "pswitch", "1.0.0"),
    });
    expect(registry.plugins["own@own-mp"]?.[0]?.version).toBe("1.2.3");
    expect((await read<Settings>(settingsFile)).enabledPlugins).toEqual({
      "own@own-mp": true,
      "pflag@gatehouse": true,
      "pswitch@gatehouse": true,
      "pdrop@gatehouse": true,
    });
  });
});
