// A real Gatehouse for approval-server tests: the approvals file written through the real store, the
// app built through services.ts and listening on a real socket in a temp home.
import fs from "node:fs";
import type { Presenter } from "../../../src/approval-server/broker.js";
import { connectToHome, type ApprovalClient } from "../../../src/approval-server/client.js";
import type { ServerLimits } from "../../../src/approval-server/limits.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { silentLogger } from "../../../src/core/log.js";
import type { AppPaths } from "../../../src/core/paths.js";
import { createServices, type Services } from "../../../src/services.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

export interface PolicySetup {
  /** `ask` preset (allowlist + on-miss + deny) unless given. */
  defaults?: {
    security?: "deny" | "allowlist" | "full";
    ask?: "off" | "on-miss" | "always";
    askFallback?: "deny" | "allowlist" | "full";
  };
  /** Entries of `agents["*"]` (patterns). */
  allow?: string[];
  /** Per-agent settings. */
  agents?: Record<
    string,
    {
      security?: "deny" | "allowlist" | "full";
      ask?: "off" | "on-miss" | "always";
      askFallback?: "deny" | "allowlist" | "full";
    }
  >;
}

/** Writes the approvals file; returns the ids of the `allow` entries, by pattern. */
export async function writePolicy(paths: AppPaths, setup: PolicySetup = {}): Promise<Record<string, string>> {
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings(
    "defaults",
    setup.defaults ?? { security: "allowlist", ask: "on-miss", askFallback: "deny" },
  );
  for (const [agent, settings] of Object.entries(setup.agents ?? {}))
    await store.setAgentSettings(agent, settings);
  const ids: Record<string, string> = {};
  for (const pattern of setup.allow ?? []) ids[pattern] = (await store.addEntry("*", { pattern })).id;
  return ids;
}

export interface RunningGatehouse {
  t: TempHome;
  services: Services;
  entryIds: Record<string, string>;
  token(): string;
  socketPath: string;
  client(): Promise<ApprovalClient>;
  auditLines(): Record<string, unknown>[];
  stop(): Promise<void>;
}

export async function startGatehouse(
  options: {
    policy?: PolicySetup;
    presenter?: Presenter;
    limits?: Partial<ServerLimits>;
    t?: TempHome;
    /** The services' clock (a frozen clock makes rate limits exact). */
    now?: () => number;
  } = {},
): Promise<RunningGatehouse> {
  const t = options.t ?? (await makeTempHome("gh-as-"));
  const entryIds = await writePolicy(t.paths, options.policy);
  const services = createServices({
    env: t.env,
    paths: t.paths,
    logger: silentLogger,
    ...(options.presenter ? { presenter: options.presenter } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const started = await services.start();
  if (started.status !== "listening") throw new Error(started.message);
  const clients: ApprovalClient[] = [];
  return {
    t,
    services,
    entryIds,
    socketPath: started.address,
    token: () =>
      (JSON.parse(fs.readFileSync(t.paths.approvals, "utf8")) as { socket: { token: string } }).socket.token,
    async client() {
      const connected = await connectToHome(t.paths);
      if (connected.status !== "connected") throw new Error(connected.reason);
      clients.push(connected.client);
      return connected.client;
    },
    auditLines() {
      if (!fs.existsSync(t.paths.audit)) return [];
      return fs
        .readFileSync(t.paths.audit, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    async stop() {
      for (const c of clients) c.close();
      await services.stop();
      await t.cleanup();
    },
  };
}
