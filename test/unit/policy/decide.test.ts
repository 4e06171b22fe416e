// Settings resolution (field by field, requests only tighten), the decision order, askFallback, the
// approvals file states, and what allow-always would save.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalsState } from "../../../src/core/approvals/index.js";
import { fallbackDecision, resolveSettings, type Explanation } from "../../../src/core/policy/index.js";
import {
  approvalsWith,
  entry,
  explainWith,
  makePolicyFixture,
  type PolicyFixture,
} from "./policy-fixture.js";

let fx: PolicyFixture;
beforeAll(async () => {
  fx = await makePolicyFixture();
});
afterAll(async () => fx.cleanup());

describe("resolveSettings", () => {
  it("takes each field from agents[id], else agents['*'], else defaults, else built-in", () => {
    const approvals = approvalsWith(
      [],
      { security: "full" },
      {
        "*": { ask: "always", allowlist: [] },
        claude: { askFallback: "allowlist" },
      },
    );
    expect(resolveSettings(approvals, "claude")).toEqual({
      security: "full",
      ask: "always",
      askFallback: "allowlist",
      sources: { security: "defaults", ask: "agents.*", askFallback: "agents.claude" },
    });
    expect(resolveSettings(approvals, "other").askFallback).toBe("deny");
    expect(resolveSettings(approvals, "other").sources.askFallback).toBe("built-in");
  });

  it("a missing file gives the built-in settings: deny, on-miss, deny", () => {
    const missing: ApprovalsState = { status: "missing", path: "/x" };
    expect(resolveSettings(missing, "local")).toMatchObject({
      security: "deny",
      ask: "on-miss",
      askFallback: "deny",
    });
  });

  it("a request can tighten security and ask but never loosen them: a looser one is named", () => {
    const approvals = approvalsWith([], { security: "allowlist", ask: "on-miss" });
    expect(resolveSettings(approvals, "a", { security: "deny", ask: "always" })).toMatchObject({
      security: "deny",
      ask: "always",
      sources: { security: "request", ask: "request" },
    });
    expect(resolveSettings(approvals, "a", { security: "full", ask: "off" })).toMatchObject({
      security: "allowlist",
      ask: "on-miss",
      sources: { security: "defaults", ask: "defaults" },
      loosening: ["security=full (the policy gives allowlist)", "ask=off (the policy gives on-miss)"],
    });
  });

  it("elevated mode gives security=full until its end, for its agent or every agent", () => {
    const approvals = approvalsWith([], { security: "allowlist", ask: "on-miss" });
    if (approvals.status !== "ok") throw new Error("fixture");
    approvals.file.elevated = { claude: { until: 2_000, since: 0 } };
    expect(resolveSettings(approvals, "claude", undefined, 1_999)).toMatchObject({
      security: "full",
      sources: { security: "elevated" },
      elevatedUntil: 2_000,
    });
    expect(resolveSettings(approvals, "claude", undefined, 2_000).security).toBe("allowlist");
    expect(resolveSettings(approvals, "other", undefined, 1_000).security).toBe("allowlist");
    // without a clock (settings shown, not decided) it does not apply
    expect(resolveSettings(approvals, "claude").security).toBe("allowlist");
    approvals.file.elevated = { "*": { until: 2_000, since: 0 } };
    expect(resolveSettings(approvals, "other", undefined, 1_000).security).toBe("full");
    // a request still tightens an elevation
    expect(resolveSettings(approvals, "other", { security: "deny" }, 1_000)).toMatchObject({
      security: "deny",
      sources: { security: "request" },
    });
  });
});

describe('an unproven agent id: the least-trusted agent (docs/decisions.md "Proven identity")', () => {
  const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;

  it("gets, field by field, the stricter of the claimed agent's settings and the anonymous ones", () => {
    const approvals = approvalsWith([], ASK_ME, {
      wide: { security: "full", ask: "off", askFallback: "full" },
      strict: { security: "deny", ask: "always" },
    });
    expect(resolveSettings(approvals, "wide", undefined, 1_000, "unproven")).toEqual({
      security: "allowlist",
      ask: "on-miss",
      askFallback: "deny",
      sources: { security: "defaults", ask: "defaults", askFallback: "defaults" },
    });
    // a claim can only narrow what an anonymous client gets
    expect(resolveSettings(approvals, "strict", undefined, 1_000, "unproven")).toMatchObject({
      security: "deny",
      ask: "always",
      askFallback: "deny",
      sources: { security: "agents.strict", ask: "agents.strict" },
    });
    // an agent nobody configured gets what agents["*"] and the defaults say
    expect(resolveSettings(approvals, "nobody", undefined, 1_000, "unproven")).toMatchObject(ASK_ME);
  });

  it("is elevated only by an elevation of every agent, never by the claimed agent's own", () => {
    const approvals = approvalsWith([], ASK_ME);
    if (approvals.status !== "ok") throw new Error("fixture");
    approvals.file.elevated = { claude: { until: 2_000, since: 0 } };
    expect(resolveSettings(approvals, "claude", undefined, 1_000).security).toBe("full");
    expect(resolveSettings(approvals, "claude", undefined, 1_000, "unproven").security).toBe("allowlist");
    approvals.file.elevated = { "*": { until: 2_000, since: 0 } };
    expect(resolveSettings(approvals, "claude", undefined, 1_000, "unproven")).toMatchObject({
      security: "full",
      sources: { security: "elevated" },
    });
  });

  it("is covered only by every-agent entries; the claimed agent's own entry says why it does not count", async () => {
    const approvals = approvalsWith([], ASK_ME, {
      claude: { allowlist: [entry("git", { id: "claude-git" })] },
    });
    const proven = await explainWith(fx, approvals, { agentId: "claude" })("git status");
    expect(proven).toMatchObject({ outcome: "run", matchedEntryIds: ["claude-git"] });
    expect(proven.identity).toBeUndefined();
    const unproven = await explainWith(fx, approvals, { agentId: "claude", identity: "unproven" })(
      "git status",
    );
    expect(unproven).toMatchObject({ outcome: "prompt", identity: "unproven", matchedEntryIds: [] });
    expect(unproven.segments[0]!.missReason).toContain("entry claude-git is agent claude's own");
    // a shared entry covers it, with a use limit too (uses of `*` are nobody's own)
    const shared = approvalsWith([entry("git", { id: "any-git", usesLeft: 2 })], ASK_ME);
    expect(
      await explainWith(fx, shared, { agentId: "claude", identity: "unproven" })("git status"),
    ).toMatchObject({ outcome: "run", matchedEntryIds: ["any-git"] });
  });
});

describe("deciding", () => {
  const run = (
    security: "deny" | "allowlist" | "full",
    ask: "off" | "on-miss" | "always",
    allowlist = [entry("*")],
  ) => explainWith(fx, approvalsWith(allowlist, { security, ask }))("git status");

  it.each([
    ["deny", "always", "deny", "security=deny"],
    ["full", "always", "prompt", "ask=always"],
    ["full", "off", "run", "security=full"],
    ["allowlist", "off", "run", "allowlist"],
  ] as const)("security=%s ask=%s → %s (%s)", async (security, ask, outcome, reason) => {
    expect(await run(security, ask)).toMatchObject({ outcome, reason });
  });

  it("security=full runs even what the allowlist does not cover", async () => {
    expect(await run("full", "on-miss", [])).toMatchObject({ outcome: "run", reason: "security=full" });
  });

  it("an allowlist miss prompts under on-miss and is denied under off", async () => {
    expect(await run("allowlist", "on-miss", [])).toMatchObject({
      outcome: "prompt",
      reason: "allowlist-miss",
    });
    expect(await run("allowlist", "off", [])).toMatchObject({ outcome: "deny", reason: "allowlist-miss" });
  });

  it("a request that tightens to deny denies an allowlisted command", async () => {
    const e = await explainWith(fx, approvalsWith([entry("*")]), { requested: { security: "deny" } })(
      "git status",
    );
    expect(e).toMatchObject({
      outcome: "deny",
      reason: "security=deny (request)",
      sources: { security: "request" },
    });
  });

  it("a request asking for full under allowlist is refused whole", async () => {
    const e = await explainWith(fx, approvalsWith([]), { requested: { security: "full", ask: "off" } })(
      "git status",
    );
    expect(e).toMatchObject({ outcome: "deny", security: "allowlist", ask: "on-miss" });
    expect(e.reason).toBe(
      "request-loosens: the request asked for security=full (the policy gives allowlist) and ask=off (the policy gives on-miss); a request may only tighten",
    );
  });
});

describe("approvals file states", () => {
  it("an invalid file denies with approvals-file-invalid and carries the path and error", async () => {
    const invalid: ApprovalsState = {
      status: "invalid",
      path: "/h/exec-approvals.json",
      error: "/h/exec-approvals.json is invalid: version: bad",
    };
    const e = await explainWith(fx, invalid)("git status");
    expect(e).toMatchObject({
      outcome: "deny",
      reason: "approvals-file-invalid",
      approvalsFile: {
        path: "/h/exec-approvals.json",
        status: "invalid",
        error: "/h/exec-approvals.json is invalid: version: bad",
      },
    });
  });

  it("a missing file uses the built-in settings and denies", async () => {
    const e = await explainWith(fx, { status: "missing", path: "/h/x.json" })("git status");
    expect(e).toMatchObject({
      outcome: "deny",
      reason: "security=deny",
      approvalsFile: { status: "missing" },
    });
  });
});

describe("askFallback when nobody answers", () => {
  const base = { approvalsFile: { path: "/x", status: "ok" as const } };
  const fallback = (askFallback: "deny" | "allowlist" | "full", allowlistSatisfied: boolean) =>
    fallbackDecision({ ...base, askFallback, allowlistSatisfied } as Pick<
      Explanation,
      "askFallback" | "allowlistSatisfied" | "approvalsFile"
    >);

  it("deny → denied, reported as a timeout", () => {
    expect(fallback("deny", true)).toEqual({ allowed: false, reason: "approval-timeout" });
  });

  it("allowlist → runs if the allowlist covers it, else denied as approval-timeout (allowlist-miss)", () => {
    expect(fallback("allowlist", true)).toMatchObject({ allowed: true });
    expect(fallback("allowlist", false)).toEqual({
      allowed: false,
      reason: "approval-timeout (allowlist-miss)",
    });
  });

  it("full → runs", () => {
    expect(fallback("full", false).allowed).toBe(true);
  });

  it("a timeout is never reported as a person's denial", () => {
    for (const f of ["deny", "allowlist", "full"] as const) {
      for (const satisfied of [true, false]) {
        const reason = fallback(f, satisfied).reason;
        expect(reason.startsWith("approval-timeout")).toBe(true);
        expect(reason).not.toMatch(/user|denied by/);
      }
    }
  });

  it("nobody to ask is reported as no-approver, never as a timeout", () => {
    const e = {
      askFallback: "allowlist",
      allowlistSatisfied: false,
      approvalsFile: { path: "x", status: "ok" },
    } as Pick<Explanation, "askFallback" | "allowlistSatisfied" | "approvalsFile">;
    expect(fallbackDecision(e, "no-approver")).toEqual({
      allowed: false,
      reason: "no-approver (allowlist-miss)",
    });
  });

  it("works on a real explanation: ask=always with a covered command falls back to allowlist", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry("*")], { security: "allowlist", ask: "always", askFallback: "allowlist" }),
    )("git status");
    expect(e.outcome).toBe("prompt");
    expect(fallbackDecision(e)).toMatchObject({ allowed: true });
  });
});

describe("what allow always would save", () => {
  it("one entry per uncovered segment, the exact real path; exact arguments for a tool of the tool table", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry(fx.tool("git"))]),
    )("git status && rm -rf b && curl c | rm d");
    expect(e.proposedEntries).toEqual([
      { pattern: fx.tool("rm"), segment: 1 },
      { pattern: fx.tool("curl"), argPattern: "^c$", segment: 2 },
    ]);
    expect(e.allowAlwaysAvailable).toBe(true);
  });

  it("inline code is proposed as the interpreter with an exact, anchored, escaped argPattern", async () => {
    const e = await explainWith(fx, approvalsWith([]))(`python3 -c 'print(1+1)'`);
    expect(e.proposedEntries).toEqual([
      { pattern: fx.tool("python3"), argPattern: "^-c print\\(1\\+1\\)$", segment: 0 },
    ]);
    expect(new RegExp(e.proposedEntries[0]?.argPattern as string).test("-c print(1+1)")).toBe(true);
    expect(new RegExp(e.proposedEntries[0]?.argPattern as string).test("-c print(1+1); evil")).toBe(false);
  });

  it("an interpreter granted bare still gets an argPattern proposal for inline code", async () => {
    const e = await explainWith(fx, approvalsWith([entry(fx.tool("python3"))]))(`python3 -c 'x'`);
    expect(e.proposedEntries).toEqual([{ pattern: fx.tool("python3"), argPattern: "^-c x$", segment: 0 }]);
  });

  it("a shell or sudo is never proposed as a bare grant", async () => {
    const e = await explainWith(
      fx,
      approvalsWith([entry("*", { argPattern: "^never$" })]),
    )("bash -c 'ls' && sudo ls && sh script.sh");
    expect(e.proposedEntries.map((p) => [p.pattern, p.argPattern])).toEqual([
      [fx.tool("bash"), "^-c ls$"],
      [fx.tool("ls"), undefined],
      [fx.tool("sudo"), "^ls$"],
      [fx.tool("sh"), "^script\\.sh$"],
    ]);
  });

  it("a shell or interpreter reading its commands from a pipe gets no proposal; one fed a here-document does", async () => {
    const e = await explainWith(fx, approvalsWith([]))("curl -s x | sh && python3 <<EOF\nprint(1)\nEOF");
    expect(e.proposedEntries.map((p) => p.pattern)).toEqual([fx.tool("curl"), fx.tool("python3")]);
  });

  it("unresolved executables and run-time arguments of inline code get no proposal", async () => {
    const e = await explainWith(fx, approvalsWith([]))('nosuch && python3 -c "$CODE"');
    expect(e.proposedEntries).toEqual([]);
    expect(e.allowAlwaysAvailable).toBe(false);
  });
});
