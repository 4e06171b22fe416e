// The preload as Electron loads it: bundled by scripts/preload.vite.config.ts into one CommonJS file
// that requires nothing but `electron` (a sandboxed preload can require nothing else). The bundle is
// built here into a temp folder; it exposes exactly one method per contract channel plus `on`,
// forwards calls on one invoke channel, and delivers only known events.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS, EVENTS, IPC_EVENT, IPC_INVOKE } from "../../../src/ipc/contract.js";
import { REPO_ROOT } from "../../support/cli.js";

interface PreloadModule {
  PRELOAD_CHANNELS: readonly string[];
  PRELOAD_EVENTS: readonly string[];
  buildGatehouseApi(transport: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    on(channel: string, listener: (event: unknown, message: unknown) => void): void;
  }): Record<string, unknown>;
}

let outDir = "";
let bundleText = "";
let preload: PreloadModule;

beforeAll(async () => {
  outDir = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-preload-"));
  await build({
    configFile: path.join(REPO_ROOT, "scripts/preload.vite.config.ts"),
    build: { outDir },
  });
  const file = path.join(outDir, "preload.cjs");
  bundleText = await fs.readFile(file, "utf8");
  preload = createRequire(import.meta.url)(file) as PreloadModule;
});

afterAll(async () => {
  if (outDir) await fs.rm(outDir, { recursive: true, force: true });
});

function fakeTransport() {
  const invoked: unknown[][] = [];
  const listeners = new Map<string, (event: unknown, message: unknown) => void>();
  return {
    invoked,
    push: (message: unknown) => listeners.get(IPC_EVENT)?.({}, message),
    transport: {
      invoke: async (...args: unknown[]) => {
        invoked.push(args);
        return { ok: true, value: null };
      },
      on: (channel: string, listener: (event: unknown, message: unknown) => void) =>
        void listeners.set(channel, listener),
    },
  };
}

describe("the preload's window.gatehouse", () => {
  it("is one CommonJS file that requires nothing but electron", () => {
    const required = [...bundleText.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
    expect(required).toEqual(["electron"]);
    expect(bundleText).not.toMatch(/\bimport\s*\(|^\s*import\s/m);
  });

  it("lists exactly the contract's channels and events", () => {
    expect([...preload.PRELOAD_CHANNELS].sort()).toEqual([...CHANNELS].sort());
    expect([...preload.PRELOAD_EVENTS].sort()).toEqual([...EVENTS].sort());
  });

  it("has one method per channel and on(), nothing else, and cannot be changed", () => {
    const api = preload.buildGatehouseApi(fakeTransport().transport);
    expect(Object.keys(api).sort()).toEqual([...CHANNELS, "on"].sort());
    expect(Object.isFrozen(api)).toBe(true);
  });

  it("sends every call on the one invoke channel with its channel name and request", async () => {
    const f = fakeTransport();
    const api = preload.buildGatehouseApi(f.transport);
    await (api["allowlist.explain"] as (r: unknown) => Promise<unknown>)({ agentId: "*", command: "ls" });
    expect(f.invoked).toEqual([[IPC_INVOKE, "allowlist.explain", { agentId: "*", command: "ls" }]]);
  });

  it("delivers pushed events to subscribers until they unsubscribe, and ignores unknown events", () => {
    const f = fakeTransport();
    const api = preload.buildGatehouseApi(f.transport);
    const on = api.on as (event: string, listener: (payload: unknown) => void) => () => void;
    const got: unknown[] = [];
    const stop = on("allowlist.changed", (payload) => got.push(payload));
    const ignored = on("no.such.event", (payload) => got.push(["wrong", payload]));
    f.push({ event: "allowlist.changed", payload: {} });
    f.push({ event: "no.such.event", payload: 1 });
    stop();
    ignored();
    f.push({ event: "allowlist.changed", payload: { again: true } });
    expect(got).toEqual([{}]);
  });
});
