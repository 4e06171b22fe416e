// `gatehouse demo [--json]`: the whole device flow in a throw-away home against the embedded demo
// backend (src/demo-backend; it needs socket.io and yazl, development dependencies, so it is loaded on
// demand and a packaged app says it is not part of the build): connect and register, take the
// backend's replace sync, run a backend command through the exec policy, see a command the allowlist
// does not cover stopped at the gate, and show the report the backend stored. Nothing outside the temp home is
// touched (no keychain, no ~/.claude); it is removed at the end. The app is built by the same
// composition root as `gatehouse serve` and the tray app (services.ts), with an in-memory secret store.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "../../core/log.js";
import { createLogger } from "../../core/log.js";
import { resolvePaths } from "../../core/paths.js";
import { saveBackendUrl } from "../../device/config.js";
import { createDemoSecretStore } from "../../secrets/demo-secret-store.js";
import { createServices, type Services } from "../../services.js";
import { parseJsonFlag } from "../args.js";
import { printJson, printLine, type CommandSpec } from "../context.js";
import type * as TestBackendModule from "../../demo-backend/server.js";

interface Step {
  name: string;
  ok: boolean;
  detail: string;
}

const SAMPLE_COMMAND = "echo hello from gatehouse";

async function poll<T>(probe: () => T | Promise<T>, timeoutMs: number): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const command: CommandSpec = {
  name: "demo",
  summary: "Run the whole device flow against an embedded test backend",
  usage: "gatehouse demo [--json]",
  async run(args, ctx) {
    const json = parseJsonFlag(args);
    const steps: Step[] = [];
    const step = (name: string, ok: boolean, detail: string): boolean => {
      steps.push({ name, ok, detail });
      if (!json) printLine(ctx, `${ok ? "✓" : "✗"} ${name}${detail ? ` — ${detail}` : ""}`);
      return ok;
    };

    let backendModule: typeof TestBackendModule;
    try {
      backendModule = await import("../../demo-backend/server.js");
    } catch (error) {
      ctx.stderr.write(
        `gatehouse demo: the embedded demo backend is not part of this build (${(error as Error).message}); ` +
          "run it from a development checkout after `npm run build`.\n",
      );
      return 1;
    }

    const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-demo-")));
    const token = "demo-token";
    const env = {
      PATH: ctx.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      WEGENT_AUTH_TOKEN: token,
    };
    const paths = resolvePaths(env);
    const logs: string[] = [];
    const logger: Logger = createLogger({ level: "info", sink: (line) => logs.push(line) });
    const backend = new backendModule.TestBackend({
      token,
      installed: { skills: [1336], plugins: [9], mcps: [7] },
    });
    let services: Services | null = null;

    try {
      await backend.start();
      step("start the test backend", true, `${backend.url} (Socket.IO /local-executor)`);

      await saveBackendUrl(paths, backend.url);
      // Nobody to ask in a demo (no presenter, no UI): askFallback (deny) decides what needs a person.
      services = createServices({
        env,
        paths,
        logger,
        presenter: null,
        device: { secrets: createDemoSecretStore() },
      });
      const { approvals } = services;
      await approvals.ensure();
      await approvals.update((file) => ({
        ...file,
        defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" },
        agents: {
          ...file.agents,
          backend: {
            allowlist: [{ id: "demo-echo", pattern: "echo", source: "demo", createdAt: Date.now() }],
          },
        },
      }));
      step("prepare a temporary home", true, `${home} (policy "Ask me", allowlist: echo for agent backend)`);

      const started = await services.start();
      if (started.status !== "listening") throw new Error(started.message);
      const device = services.device;
      if (!device) throw new Error("the services were built without the device side");
      const registered = await poll(() => device.state().state === "registered", 15_000);
      const state = device.state();
      if (
        !step(
          "connect and register",
          Boolean(registered),
          registered
            ? `${state.deviceId} (${state.deviceName})`
            : `${state.state}: ${state.lastError ?? "no answer"}`,
        )
      ) {
        return finish();
      }

      const syncAck = await poll(
        () =>
          backend.device(state.deviceId!)?.syncAcks[0] as
            { success?: boolean; skills?: unknown[] } | undefined,
        30_000,
      );
      const link = path.join(paths.claudeHome, "skills", "browser");
      const linked = await fs.lstat(link).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      step(
        "take the backend's replace sync",
        syncAck?.success === true && linked,
        syncAck
          ? `skill browser, plugin context7, MCP docs; ${link} → ${linked ? await fs.readlink(link) : "missing"}`
          : "no sync ack",
      );

      const ran = (await backend.executeCommand(state.deviceId!, { command: SAMPLE_COMMAND }, 20_000)) as {
        success?: boolean;
        stdout?: string;
        error?: string;
      };
      step(
        `run "${SAMPLE_COMMAND}" sent by the backend`,
        ran.success === true && ran.stdout === "hello from gatehouse\n",
        ran.success
          ? `allowed by the allowlist; stdout ${JSON.stringify(ran.stdout)}`
          : (ran.error ?? "failed"),
      );

      const stopped = (await backend.executeCommand(
        state.deviceId!,
        { command: "rm -rf ~/precious" },
        20_000,
      )) as {
        success?: boolean;
        error?: string;
      };
      step(
        'stop "rm -rf ~/precious" at the gate',
        stopped.success === false &&
          (stopped.error ?? "").startsWith("Command not approved: nobody could be asked"),
        `not on the allowlist and nobody to ask: ${stopped.error ?? "it ran!"}`,
      );

      const report = await poll(() => {
        const r = backend.device(state.deviceId!)?.lastReport as {
          skills?: Array<{ name: string }>;
          plugins?: unknown[];
          mcps?: unknown[];
          digest?: string;
        } | null;
        return r?.skills?.some((s) => s.name === "browser") ? r : null;
      }, 15_000);
      step(
        "send the capability report in a heartbeat",
        report !== null,
        report
          ? `${report.skills?.length ?? 0} skill(s), digest ${report.digest}`
          : "no report with the synced skill",
      );
      return finish();
    } catch (error) {
      step("demo", false, (error as Error).message);
      return finish();
    } finally {
      await services?.stop().catch(() => undefined);
      await backend.close().catch(() => undefined);
      await fs.rm(home, { recursive: true, force: true });
    }

    function finish(): number {
      const ok = steps.every((s) => s.ok);
      if (json) printJson(ctx, { ok, steps });
      else
        printLine(
          ctx,
          ok ? "Every step worked; the temporary home was removed." : "Some steps failed (see above).",
        );
      if (!ok && !json) for (const line of logs.slice(-20)) ctx.stderr.write(`${line}\n`);
      return ok ? 0 : 1;
    }
  },
};
