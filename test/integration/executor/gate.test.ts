import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ApprovalsStore,
  type AllowlistEntry,
  type PolicySettings,
} from "../../../src/core/approvals/index.js";
import { silentLogger } from "../../../src/core/log.js";
import type { PromptAnswer, PromptFn, PromptRequest } from "../../../src/core/policy/types.js";
import { AuditLog, type AuditRecord } from "../../../src/executor/audit-log.js";
import {
  decideCommand,
  gateAndRun,
  type ExecEvent,
  type GateDeps,
  type GateRunRequest,
} from "../../../src/executor/gate.js";
import { UsageRecorder } from "../../../src/executor/usage-recorder.js";
import { gateDeps, gateRequest } from "../../support/executor-inputs.js";
import { realProgram } from "../../support/programs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let approvals: ApprovalsStore;
let audit: AuditLog;
let events: ExecEvent[];

beforeEach(async () => {
  t = await makeTempHome("gatehouse-gate-");
  approvals = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  audit = new AuditLog({ path: t.paths.audit });
  events = [];
});
afterEach(async () => t.cleanup());

async function policy(settings: PolicySettings, entries: { name: string; usesLeft?: number }[] = []) {
  await approvals.ensure();
  await approvals.setAgentSettings("defaults", settings);
  const added: AllowlistEntry[] = [];
  for (const { name, usesLeft } of entries) {
    added.push(
      await approvals.addEntry("local", {
        pattern: realProgram(name),
        ...(usesLeft !== undefined ? { usesLeft } : {}),
      }),
    );
  }
  return added;
}

const deps = (over: Partial<GateDeps> = {}): GateDeps =>
  gateDeps(t, { approvals, audit, onEvent: (event) => events.push(event), ...over });

const request = (over: Partial<GateRunRequest> = {}): GateRunRequest => gateRequest(t.home, over);

const marker = () => path.join(t.home, "ran");
const ran = () =>
  fs.access(marker()).then(
    () => true,
    () => false,
  );
const touch = (): Partial<GateRunRequest> => ({ command: { argv: ["touch", marker()] } });

async function auditLines(): Promise<AuditRecord[]> {
  return (await audit.read({ limit: 100 })).reverse();
}

async function entryOnDisk(id: string): Promise<AllowlistEntry | undefined> {
  const state = await approvals.load();
  if (state.status !== "ok") return undefined;
  return Object.values(state.file.agents)
    .flatMap((a) => a.allowlist ?? [])
    .find((e) => e.id === id);
}

/** A prompt that answers the same every time and remembers what it was shown. */
function answering(answer: PromptAnswer): PromptFn & { seen: PromptRequest[] } {
  const seen: PromptRequest[] = [];
  return Object.assign(
    async (prompt: PromptRequest) => {
      seen.push(prompt);
      return answer;
    },
    { seen },
  );
}

describe("the gate: policy outcomes", () => {
  it("runs a covered command at once, decided by the rule that matched", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "on-miss" }, [{ name: "touch" }]);
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: `rule:${entry?.id}`, exitCode: 0 });
    expect(await ran()).toBe(true);
  });

  it("runs anything under security=full, decided by the policy", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "policy", reason: "security=full" });
    expect(await ran()).toBe(true);
  });

  it("refuses under security=deny without spawning anything or asking anyone", async () => {
    await policy({ security: "deny" });
    const prompt = answering({ decision: "allow-once" });
    const result = await gateAndRun(request(touch()), deps({ prompt }));
    expect(result).toMatchObject({
      decision: "deny",
      decidedBy: "policy",
      reason: "security=deny",
      exitCode: null,
    });
    expect(prompt.seen).toHaveLength(0);
    expect(await ran()).toBe(false);
  });

  it("refuses an uncovered command under ask=off", async () => {
    await policy({ security: "allowlist", ask: "off" });
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "deny", decidedBy: "policy", reason: "allowlist-miss" });
    expect(await ran()).toBe(false);
  });

  it("behaves as deny while the approvals file is invalid, and leaves the file as it is", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.approvals, "{ not json");
    const result = await gateAndRun(
      request(touch()),
      deps({ prompt: answering({ decision: "allow-once" }) }),
    );
    expect(result.decision).not.toMatch(/^allow/);
    expect(await ran()).toBe(false);
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe("{ not json");
  });

  it("applies an edit of the approvals file to the very next request", async () => {
    await policy({ security: "allowlist", ask: "off" });
    expect((await gateAndRun(request(touch()), deps())).decision).toBe("deny");
    await approvals.addEntry("local", { pattern: realProgram("touch") });
    expect((await gateAndRun(request(touch()), deps())).decision).toBe("allow-once");
  });
});

describe("the gate: prompts", () => {
  it("asks a person when the allowlist misses and runs what they allow once", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const prompt = answering({ decision: "allow-once" });
    const before = Date.now();
    const result = await gateAndRun(
      request({ ...touch(), promptTimeoutMs: 30_000, reason: "tidy up", sessionKey: "task:7" }),
      deps({ prompt }),
    );
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "user", exitCode: 0 });
    expect(await ran()).toBe(true);
    const shown = prompt.seen[0];
    expect(shown).toMatchObject({
      id: result.runId,
      sessionKey: "task:7",
      source: "test",
      reason: "tidy up",
    });
    expect(shown?.expiresAt).toBeGreaterThanOrEqual(before + 30_000);
    expect(shown?.expiresAt).toBe((shown?.createdAt ?? 0) + 30_000);
    expect(shown?.explanation.outcome).toBe("prompt");
  });

  it("gives a prompt 120 s by default and at most 30 minutes", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const prompt = answering({ decision: "deny" });
    await gateAndRun(request(touch()), deps({ prompt }));
    await gateAndRun(request({ ...touch(), promptTimeoutMs: 10 * 60 * 60_000 }), deps({ prompt }));
    expect(prompt.seen.map((p) => p.expiresAt - p.createdAt)).toEqual([120_000, 30 * 60_000]);
  });

  it("runs nothing when the person denies, and says the user decided", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const result = await gateAndRun(request(touch()), deps({ prompt: answering({ decision: "deny" }) }));
    expect(result).toMatchObject({ decision: "deny", decidedBy: "user", exitCode: null });
    expect(await ran()).toBe(false);
  });

  it("saves the proposed entries on allow always, so the next identical request runs by rule", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const first = await gateAndRun(
      request(touch()),
      deps({ prompt: answering({ decision: "allow-always" }) }),
    );
    expect(first).toMatchObject({ decision: "allow-always", decidedBy: "user", exitCode: 0 });
    expect(first.savedEntries).toHaveLength(1);
    const saved = first.savedEntries?.[0];
    expect(saved).toMatchObject({ pattern: realProgram("touch"), source: "allow-always" });
    expect(await entryOnDisk(saved?.id ?? "")).toMatchObject({ pattern: saved?.pattern });

    const prompt = answering({ decision: "deny" });
    const second = await gateAndRun(request(touch()), deps({ prompt }));
    expect(second).toMatchObject({ decision: "allow-once", decidedBy: `rule:${saved?.id}` });
    expect(prompt.seen).toHaveLength(0);
  });

  it("saves the entries the person edited instead of the proposal", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const edited = { pattern: realProgram("touch"), argPattern: `^${t.home}/`, segment: 0 };
    const result = await gateAndRun(
      request(touch()),
      deps({ prompt: answering({ decision: "allow-always", entries: [edited] }) }),
    );
    expect(result.savedEntries?.[0]).toMatchObject({
      pattern: edited.pattern,
      argPattern: edited.argPattern,
      source: "allow-always",
    });
  });

  it("runs once without saving when allow always is refused for a shell", async () => {
    await policy({ security: "allowlist", ask: "on-miss" });
    const result = await gateAndRun(
      request({ command: { argv: ["sh", "-c", `touch '${marker()}'`] } }),
      deps({
        prompt: answering({ decision: "allow-always", entries: [{ pattern: "/bin/sh", segment: 0 }] }),
      }),
    );
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "user" });
    expect(result.reason).toMatch(/not changed/);
    expect(result.savedEntries).toBeUndefined();
    expect(await ran()).toBe(true);
  });

  it("never saves under ask=always, even when the answer says allow always", async () => {
    await policy({ security: "allowlist", ask: "always" });
    const result = await gateAndRun(
      request(touch()),
      deps({ prompt: answering({ decision: "allow-always" }) }),
    );
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "user" });
    const state = await approvals.load();
    expect(state.status === "ok" && state.file.agents.local?.allowlist).toBeFalsy();
  });

  it("times a silent prompt out itself and hands over to askFallback", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    let withdrawn = false;
    const never: PromptFn = (_prompt, signal) =>
      new Promise(() => signal?.addEventListener("abort", () => (withdrawn = true)));
    const result = await gateAndRun(request({ ...touch(), promptTimeoutMs: 100 }), deps({ prompt: never }));
    expect(result).toMatchObject({ decision: "timeout", decidedBy: "fallback", reason: "approval-timeout" });
    expect(withdrawn).toBe(true);
    expect(await ran()).toBe(false);
  });

  it("withdraws the prompt and runs nothing when the requester goes away", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "full" });
    const controller = new AbortController();
    let withdrawn = false;
    const pending: PromptFn = (_prompt, signal) => {
      signal?.addEventListener("abort", () => (withdrawn = true));
      setImmediate(() => controller.abort());
      return new Promise(() => undefined);
    };
    const result = await gateAndRun(
      request({ ...touch(), signal: controller.signal }),
      deps({ prompt: pending }),
    );
    expect(result.decision).toBe("cancelled");
    expect(withdrawn).toBe(true);
    expect(await ran()).toBe(false);
  });

  it("lets askFallback decide when the prompt itself fails", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "full" });
    const broken: PromptFn = async () => {
      throw new Error("too many pending prompts");
    };
    const result = await gateAndRun(request(touch()), deps({ prompt: broken }));
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "fallback" });
  });
});

describe("the gate: askFallback with nobody to ask", () => {
  it("askFallback=deny reports no-approver decided by the fallback, never a user denial or a timeout", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "no-approver", decidedBy: "fallback", exitCode: null });
    expect(result.reason).toBe("no-approver");
    expect(await ran()).toBe(false);
    expect(events.find((e) => e.type === "exec.denied")).toMatchObject({
      decision: "no-approver",
      decidedBy: "fallback",
    });
  });

  it("askFallback=allowlist runs what the allowlist covers", async () => {
    await policy({ security: "allowlist", ask: "always", askFallback: "allowlist" }, [{ name: "touch" }]);
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "fallback", exitCode: 0 });
    expect(await ran()).toBe(true);
  });

  it("askFallback=allowlist refuses what the allowlist misses", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "allowlist" });
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
    expect(result.reason).toMatch(/allowlist-miss/);
    expect(await ran()).toBe(false);
  });

  it("askFallback=full runs it", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "full" });
    const result = await gateAndRun(request(touch()), deps());
    expect(result).toMatchObject({ decision: "allow-once", decidedBy: "fallback", exitCode: 0 });
    expect(await ran()).toBe(true);
  });
});

describe("the gate: bookkeeping, audit and events", () => {
  it("counts down usesLeft and records the last use after a covered run", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "on-miss", askFallback: "deny" }, [
      { name: "printf", usesLeft: 2 },
    ]);
    const id = entry?.id ?? "";
    const printf = { command: { argv: ["printf", "hi there"] } };
    expect((await gateAndRun(request(printf), deps())).decision).toBe("allow-once");
    expect(await entryOnDisk(id)).toMatchObject({
      usesLeft: 1,
      lastUsedCommand: "printf 'hi there'",
      lastResolvedPath: realProgram("printf"),
    });
    expect((await entryOnDisk(id))?.lastUsedAt).toBeGreaterThan(0);
    expect((await gateAndRun(request(printf), deps())).decision).toBe("allow-once");
    expect((await entryOnDisk(id))?.usesLeft).toBe(0);
    const third = await gateAndRun(request(printf), deps());
    expect(third).toMatchObject({ decision: "no-approver", decidedBy: "fallback" });
  });

  it("has counted a limited entry down when the result returns, also through a service's usage recorder", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "off" }, [{ name: "printf", usesLeft: 3 }]);
    const usage = new UsageRecorder(approvals, silentLogger);
    const printf = request({ command: { argv: ["printf", "x"] } });
    await Promise.all([gateAndRun(printf, deps({ usage })), gateAndRun(printf, deps({ usage }))]);
    expect((await entryOnDisk(entry?.id ?? ""))?.usesLeft).toBe(1);
  });

  it("records the last use of an unlimited entry without holding up the result", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "on-miss" }, [{ name: "printf" }]);
    const work: Promise<void>[] = [];
    const result = await gateAndRun(
      request({ command: { argv: ["printf", "%s", "x"] } }),
      deps({ background: (p) => work.push(p) }),
    );
    expect(result.decision).toBe("allow-once");
    expect(work.length).toBeGreaterThan(0);
    await Promise.all(work);
    expect(await entryOnDisk(entry?.id ?? "")).toMatchObject({
      lastUsedCommand: "printf %s x",
      lastResolvedPath: realProgram("printf"),
    });
    expect((await entryOnDisk(entry?.id ?? ""))?.usesLeft ?? null).toBeNull();
  });

  it("writes a decision line and a run line with who decided", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "on-miss" }, [{ name: "printf" }]);
    const result = await gateAndRun(
      request({ command: { argv: ["printf", "x"] }, sessionKey: "task:1", commandKey: "say-x" }),
      deps(),
    );
    const lines = await auditLines();
    expect(lines.map((l) => l.event)).toEqual(["decision", "run"]);
    for (const line of lines) {
      expect(line).toMatchObject({
        runId: result.runId,
        agentId: "local",
        sessionKey: "task:1",
        source: "test",
        command: "printf x",
        cwd: t.home,
        decision: "allow-once",
        decidedBy: `rule:${entry?.id}`,
        commandKey: "say-x",
      });
    }
    expect(lines[1]).toMatchObject({ exitCode: 0, timedOut: false, reason: "exited with 0" });
  });

  it("audits a refusal with a decision line only", async () => {
    await policy({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    await gateAndRun(request(touch()), deps());
    const lines = await auditLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      event: "decision",
      decision: "no-approver",
      decidedBy: "fallback",
      exitCode: null,
    });
  });

  it("keeps the environment and the output out of the audit log", async () => {
    await policy({ security: "full", ask: "off" });
    await gateAndRun(
      request({
        command: { argv: ["sh", "-c", 'echo "out-$SECRET_VALUE"'] },
        env: { SECRET_VALUE: "hunter2" },
      }),
      deps(),
    );
    const text = await fs.readFile(t.paths.audit, "utf8");
    expect(text).not.toContain("hunter2");
    expect(text).not.toMatch(/"(env|stdout|stderr|output)"/);
  });

  it("emits started and finished events with the run id and the end of the output", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await gateAndRun(
      request({ command: { command: "head -c 100000 /dev/zero | tr '\\0' a; echo END; exit 4" } }),
      deps(),
    );
    expect(events.map((e) => e.type)).toEqual(["exec.started", "exec.finished"]);
    const finished = events[1];
    expect(finished).toMatchObject({
      type: "exec.finished",
      runId: result.runId,
      exitCode: 4,
      timedOut: false,
    });
    const output = finished?.type === "exec.finished" ? finished.output : "";
    expect(output).toHaveLength(20_000);
    expect(output.endsWith("aaaEND\n")).toBe(true);
  });

  it("emits a denied event with the reason", async () => {
    await policy({ security: "deny" });
    const result = await gateAndRun(request(touch()), deps());
    expect(events).toEqual([
      expect.objectContaining({
        type: "exec.denied",
        runId: result.runId,
        reason: "security=deny",
        decidedBy: "policy",
      }),
    ]);
  });

  it("spawns nothing when the cwd re-check refuses, and audits why", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await gateAndRun(
      request(touch()),
      deps({ recheckCwd: async () => ({ ok: false, message: "the workdir changed before start" }) }),
    );
    expect(result).toMatchObject({ decision: "allow-once", exitCode: null });
    expect(result.spawnError).toBe("Failed to start command: the workdir changed before start");
    expect(await ran()).toBe(false);
    expect((await auditLines())[1]).toMatchObject({
      event: "run",
      reason: result.spawnError,
      exitCode: null,
    });
  });

  it("runs with the runner's allowlisted variables and the request's own, never the secrets", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await gateAndRun(
      request({ command: { argv: ["env"] }, env: { EXTRA: "1", PATH: "/evil" } }),
      deps({
        baseEnv: { ...t.env, NODE_OPTIONS: "--inspect", WEGENT_AUTH_TOKEN: "device-token-1234", OTHER: "x" },
      }),
    );
    expect(result.stdout).toContain("EXTRA=1");
    expect(result.stdout).toContain(`HOME=${t.home}`);
    expect(result.stdout).not.toMatch(/NODE_OPTIONS|\/evil|device-token|OTHER/);
    expect(result.warnings[0]).toMatch(/PATH override ignored/);
  });

  it("a request variable that changes what runs needs a person: with nobody to ask it does not run", async () => {
    await policy({ security: "allowlist", ask: "off", askFallback: "deny" }, [{ name: "touch" }]);
    const result = await gateAndRun(request({ ...touch(), env: { LD_PRELOAD: "/tmp/x.so" } }), deps());
    expect(result).toMatchObject({ decision: "deny", reason: "allowlist-miss" });
    expect(result.explanation.flagDetails).toContainEqual(
      expect.objectContaining({
        kind: "dangerous-assignment",
        detail: expect.stringContaining("the request sets LD_PRELOAD"),
      }),
    );
    expect(await ran()).toBe(false);
  });
});

describe("the gate: time budget and decisions without running", () => {
  it("runs with what remains of the budget after the prompt", async () => {
    await policy({ security: "full", ask: "off" });
    const result = await gateAndRun(request({ command: { argv: ["sleep", "30"] }, budgetMs: 300 }), deps());
    expect(result).toMatchObject({ decision: "allow-once", timedOut: true });
  });

  it("decides an approval request without running it, and audits the decision", async () => {
    const [entry] = await policy({ security: "allowlist", ask: "on-miss" }, [{ name: "touch" }]);
    const decision = await decideCommand(request(touch()), deps());
    expect(decision).toMatchObject({ decision: "allow-once", decidedBy: `rule:${entry?.id}` });
    expect(await ran()).toBe(false);
    expect((await auditLines()).map((l) => l.event)).toEqual(["decision"]);
  });
});
