// The whole app for task tests: a temp home, the real composition root (createServices with its device
// side: approval socket, workdir service, skill catalogue, capability sync, backend connection and the
// task runner), the real Socket.IO test backend that sends `task:execute` and records every event, and
// the real Claude Code / Codex CLIs from node_modules/.bin. The model providers are the only fakes
// (test/support/scripted-anthropic.ts, scripted-openai.ts). Connection timings are shortened.
import fs from "node:fs/promises";
import path from "node:path";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { createLogger, type Logger } from "../../../src/core/log.js";
import { createServices, type Services } from "../../../src/services.js";
import { startTestBackend, type CapturedEvent, type TestBackend } from "../../../src/demo-backend/server.js";
import { AGENT_BIN_DIRS } from "../../support/agent-clis.js";
import { GATEHOUSE_BIN } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { FAST_TIMINGS, noKeychainSecrets } from "../device/harness.js";

export { CLAUDE, CODEX, HAVE_CLAUDE, HAVE_CODEX } from "../../support/agent-clis.js";
export const DEVICE_ID = "device-0123456789abcdef01234567";
export const TOKEN = "test-token";

export interface TaskApp {
  t: TempHome;
  backend: TestBackend;
  services: Services;
  env: Record<string, string>;
  logs: string[];
  logger: Logger;
  /** Sends `task:execute` from the backend. */
  send(payload: Record<string, unknown>): void;
  /** Every event the backend received for a subtask, in arrival order. */
  eventsOf(subtaskId: number): CapturedEvent[];
  /** Waits until the backend has a terminal event for the subtask and returns the subtask's events. */
  untilTerminal(subtaskId: number, timeoutMs?: number): Promise<CapturedEvent[]>;
  setPolicy(setup: {
    defaults: {
      security: "deny" | "allowlist" | "full";
      ask: "off" | "on-miss" | "always";
      askFallback: "deny" | "allowlist" | "full";
    };
    /** Real paths (or patterns) allowed for every agent; `usesLeft` makes a grant for that many runs. */
    allow?: Array<string | { pattern: string; usesLeft: number }>;
  }): Promise<void>;
  close(): Promise<void>;
}

export interface TaskAppOptions {
  /** Model endpoints and other variables for the agents. */
  env?: Record<string, string>;
  maxConcurrentTasks?: number;
  settings?: Record<string, unknown>;
  /** Use this home (a restart on the same home); default a new temp home. */
  t?: TempHome;
  backend?: TestBackend;
  killGraceMs?: number;
}

export const TERMINAL = new Set(["response.completed", "response.incomplete", "error"]);

export function payloadOf(event: CapturedEvent): Record<string, unknown> {
  return event.payload as Record<string, unknown>;
}

export function dataOf(event: CapturedEvent): Record<string, unknown> {
  return payloadOf(event).data as Record<string, unknown>;
}

/** The completed event's full text. */
export function completedText(event: CapturedEvent): string {
  const response = dataOf(event).response as { output: Array<{ content: Array<{ text: string }> }> };
  return response.output[0]!.content[0]!.text;
}

export async function writeDeviceConfig(
  t: TempHome,
  backendUrl: string,
  maxConcurrentTasks = 5,
): Promise<void> {
  await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
  await fs.writeFile(
    t.paths.deviceConfig,
    JSON.stringify({
      mode: "local",
      device_type: "local",
      bind_shell: "claudecode",
      device_id: DEVICE_ID,
      runtime_instance_id: "runtime-0123456789abcdef01234567",
      device_name: "",
      max_concurrent_tasks: maxConcurrentTasks,
      connection: { backend_url: backendUrl, socket_url: "", auth_token: "" },
    }),
    { mode: 0o600 },
  );
}

/** The agents' environment: the temp home, the backend token, the CLIs on PATH, offline Claude Code. */
export function taskEnv(t: TempHome, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...t.env,
    PATH: [...AGENT_BIN_DIRS, t.env.PATH].join(path.delimiter),
    WEGENT_AUTH_TOKEN: TOKEN,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...extra,
  };
}

export async function startTaskApp(options: TaskAppOptions = {}): Promise<TaskApp> {
  const t = options.t ?? (await makeTempHome("gh-tasks-"));
  const backend = options.backend ?? (await startTestBackend({ token: TOKEN }));
  await writeDeviceConfig(t, backend.url, options.maxConcurrentTasks);
  if (options.settings) {
    await fs.writeFile(t.paths.settings, JSON.stringify({ version: 1, ...options.settings }), {
      mode: 0o600,
    });
  }
  const env = taskEnv(t, options.env);
  const logs: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => logs.push(line) });
  const services = createServices({
    env,
    paths: t.paths,
    logger,
    device: {
      secrets: noKeychainSecrets(t, logger),
      timings: FAST_TIMINGS,
      gatehouseCommand: [process.execPath, GATEHOUSE_BIN],
      ...(options.killGraceMs !== undefined ? { taskKillGraceMs: options.killGraceMs } : {}),
    },
  });
  const started = await services.start();
  if (started.status !== "listening") throw new Error(`services did not start: ${started.message}`);
  await waitFor(() => backend.isOnline(DEVICE_ID), { what: "the device to register", timeoutMs: 15_000 });

  const eventsOf = (subtaskId: number) =>
    backend.events.filter(
      (e) => (e.payload as { subtask_id?: unknown } | undefined)?.subtask_id === subtaskId,
    );
  return {
    t,
    backend,
    services,
    env,
    logs,
    logger,
    send: (payload) => backend.send(DEVICE_ID, "task:execute", payload),
    eventsOf,
    async untilTerminal(subtaskId, timeoutMs = 90_000) {
      await waitFor(() => eventsOf(subtaskId).some((e) => TERMINAL.has(e.event)), {
        timeoutMs,
        what: `a terminal event for subtask ${subtaskId} (got ${eventsOf(subtaskId)
          .map((e) => e.event)
          .join(", ")}; log tail: ${logs.slice(-8).join(" | ")})`,
      });
      return eventsOf(subtaskId);
    },
    async setPolicy(setup) {
      const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
      await store.ensure();
      await store.setAgentSettings("defaults", setup.defaults);
      for (const entry of setup.allow ?? [])
        await store.addEntry("*", typeof entry === "string" ? { pattern: entry } : entry);
    },
    async close() {
      await services.stop();
      if (!options.backend) await backend.close();
      if (!options.t) await t.cleanup();
    },
  };
}

/** A `task:execute` payload as Wegent sends it (device-protocol.md §6.1), blanks left for the device. */
export function taskPayload(
  taskId: number,
  subtaskId: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    task_id: taskId,
    subtask_id: subtaskId,
    message_id: subtaskId * 10,
    user_id: 1,
    user_name: "alice",
    bot: [{ shell_type: "ClaudeCode" }],
    model_config: { model_id: "claude-scripted" },
    prompt: "Do the scripted thing.",
    auth_token: "",
    backend_url: "",
    device_id: "",
    ...extra,
  };
}
