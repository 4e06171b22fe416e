// What the executor is handed in tests, with the defaults every executor test repeats: a run spec
// for runProcess, and a request and dependencies for the gate. Tests override only what they are about.
import { silentLogger } from "../../src/core/log.js";
import { AuditLog } from "../../src/executor/audit-log.js";
import type { GateDeps, GateRunRequest } from "../../src/executor/gate.js";
import type { RunSpec } from "../../src/executor/run-process.js";
import type { TempHome } from "./temp-home.js";

/** `true`, run in the temp home with the temp home's environment, unless `over` says otherwise. */
export function runSpec(t: TempHome, over: Partial<RunSpec> = {}): RunSpec {
  return { command: { argv: ["true"] }, cwd: t.home, env: t.env, ...over };
}

/** `true` in `cwd`, asked by the `local` agent from a `test` source, unless `over` says otherwise. */
export function gateRequest(cwd: string, over: Partial<GateRunRequest> = {}): GateRunRequest {
  return { command: { argv: ["true"] }, agentId: "local", sessionKey: "local", source: "test", cwd, ...over };
}

/**
 * The gate's dependencies for a temp home: its audit log, its environment and HOME, nobody to ask
 * (prompt null), a silent logger, the real clock; `over` names the approvals store and anything else.
 */
export function gateDeps(t: TempHome, over: Partial<GateDeps> & Pick<GateDeps, "approvals">): GateDeps {
  return {
    audit: over.audit ?? new AuditLog({ path: t.paths.audit }),
    prompt: null,
    baseEnv: t.env,
    home: t.home,
    now: Date.now,
    logger: silentLogger,
    ...over,
  };
}
