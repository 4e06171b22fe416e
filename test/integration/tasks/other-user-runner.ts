// The whole runner as another user, for attack turns: `gatehouse serve` (the device side, as the tray app
// builds it) runs as uid 65534 with HOME in a temp folder that user owns, so the agent CLIs it starts and
// every tool call they make run with that user's rights only. The test backend and the scripted model
// stay in the test process; the runner dials them on 127.0.0.1. No presenter is attached, so whatever
// needs a person is decided by askFallback.
import { spawn, type ChildProcess } from "node:child_process";
import { lchownSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { GATEHOUSE_BIN } from "../../support/cli.js";
import { OTHER_UID } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { DEVICE_ID, TERMINAL, taskEnv, TOKEN, writeDeviceConfig } from "./harness.js";
import type { CapturedEvent } from "../../../src/demo-backend/server.js";

export interface OtherUserRunner {
  t: TempHome;
  backend: TestBackend;
  /** Sends `task:execute` and waits for the subtask's terminal event; returns the subtask's events. */
  run(payload: Record<string, unknown>, subtaskId: number): Promise<CapturedEvent[]>;
  /** Lines of E/audit.jsonl. */
  audit(): Promise<Array<Record<string, unknown>>>;
  /** Makes what the test created in the home the other user's (call after creating files). */
  handOver(): Promise<void>;
  close(): Promise<void>;
}

async function chownTree(dir: string): Promise<void> {
  lchownSync(dir, OTHER_UID, OTHER_UID);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(p);
    else lchownSync(p, OTHER_UID, OTHER_UID);
  }
}

/**
 * Starts the runner as uid 65534 on a fresh home with `defaults` as every agent's settings.
 * `env`: the model endpoints and settings the agents need.
 */
export async function startOtherUserRunner(options: {
  env: Record<string, string>;
  defaults: {
    security: "deny" | "allowlist" | "full";
    ask: "off" | "on-miss" | "always";
    askFallback: "deny" | "allowlist" | "full";
  };
  settings?: Record<string, unknown>;
  /** Called before the runner starts, to plant files in the home (they are handed over after). */
  prepare?: (t: TempHome) => Promise<void>;
}): Promise<OtherUserRunner> {
  const t = await makeTempHome("gh-other-runner-");
  const backend = await startTestBackend({ token: TOKEN });
  await writeDeviceConfig(t, backend.url);
  if (options.settings)
    await fs.writeFile(t.paths.settings, JSON.stringify({ version: 1, ...options.settings }), {
      mode: 0o600,
    });
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", options.defaults);
  await options.prepare?.(t);
  await chownTree(t.home);
  const env = taskEnv(t, options.env);
  const child: ChildProcess = spawn(
    "/usr/bin/setpriv",
    [
      `--reuid=${OTHER_UID}`,
      `--regid=${OTHER_UID}`,
      "--clear-groups",
      "--",
      process.execPath,
      GATEHOUSE_BIN,
      "serve",
    ],
    { env, cwd: t.home, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  const stop = async () => {
    if (!ended) child.kill("SIGTERM");
    await exited;
  };
  try {
    await waitFor(
      () => {
        if (ended) throw new Error(`gatehouse serve (uid ${OTHER_UID}) exited early: ${err}`);
        return out.includes("Gatehouse is serving") && backend.isOnline(DEVICE_ID);
      },
      { what: "the runner to serve and register", timeoutMs: 30_000 },
    );
  } catch (error) {
    await stop();
    await backend.close();
    await t.cleanup();
    throw error;
  }
  const eventsOf = (subtaskId: number) =>
    backend.events.filter(
      (e) => (e.payload as { subtask_id?: unknown } | undefined)?.subtask_id === subtaskId,
    );
  return {
    t,
    backend,
    async run(payload, subtaskId) {
      backend.send(DEVICE_ID, "task:execute", payload);
      await waitFor(() => eventsOf(subtaskId).some((e) => TERMINAL.has(e.event)), {
        what: `a terminal event for subtask ${subtaskId} (runner stderr: ${err.slice(-500)})`,
        timeoutMs: 120_000,
      });
      return eventsOf(subtaskId);
    },
    async audit() {
      const text = await fs.readFile(t.paths.audit, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    handOver: () => chownTree(t.home),
    async close() {
      await stop();
      await backend.close();
      await t.cleanup();
    },
  };
}
