// Tool calls other than commands and file accesses under the policy (core/policy/tool-call-explain.ts,
// mcp-tools.ts; src/shared/mcp-entry.ts): an MCP tool is covered by an `mcp:SERVER/TOOL` entry as each
// runtime names the tool; a call for a person is decided exactly like an allowlist miss; MCP entries are
// validated on their own terms and never cover a program.
import { describe, expect, it } from "vitest";
import {
  allowAlwaysProblem,
  mcpPattern,
  parseMcpPattern,
  patternKind,
  validateEntry,
} from "../../../src/core/approvals/index.js";
import { compileAllowlist } from "../../../src/core/policy/index.js";
import { matchMcpEntry, mcpTargetOfName, mcpToolName } from "../../../src/core/policy/mcp-tools.js";
import {
  explainToolCall,
  toolCallOf,
  type ToolCallRequest,
} from "../../../src/core/policy/tool-call-explain.js";
import { nextStep } from "../../../src/core/policy/outcome-text.js";
import { approvalsWith, entry } from "./policy-fixture.js";

const mcp = (runtime: "claude" | "codex", tool: string): ToolCallRequest => ({
  runtime,
  tool,
  kind: "mcp",
  what: "calls a tool of an MCP server",
  input: '{"q":"x"}',
  workdir: "/w",
  agentId: "codex",
});
const person: ToolCallRequest = {
  runtime: "claude",
  tool: "WebFetch",
  kind: "person",
  what: "fetches http://127.0.0.1/ from this machine",
  reason: "it reaches the network from this machine",
  workdir: "/w",
  agentId: "claude-code",
};

describe("MCP entries", () => {
  it("are mcp:SERVER/TOOL patterns with names of letters, digits, _ . -", () => {
    expect(mcpPattern({ server: "docs", tool: "search" })).toBe("mcp:docs/search");
    expect(parseMcpPattern("mcp:marker-srv/mark")).toEqual({ server: "marker-srv", tool: "mark" });
    expect(parseMcpPattern("mcp:a b/c")).toBeNull();
    expect(parseMcpPattern("/usr/bin/mcp")).toBeNull();
    expect(patternKind("mcp:docs/search")).toBe("mcp");
    expect(validateEntry({ pattern: "mcp:docs/search" })).toEqual({ ok: true });
    expect(validateEntry({ pattern: "mcp:docs" })).toMatchObject({ ok: false, field: "pattern" });
    expect(validateEntry({ pattern: "mcp:docs/*" })).toMatchObject({ ok: false, field: "pattern" });
    expect(validateEntry({ pattern: "mcp:docs/search", cwd: "/w/**" })).toMatchObject({
      ok: false,
      field: "cwd",
    });
    expect(validateEntry({ pattern: "mcp:docs/search", argPattern: "^x" })).toMatchObject({
      ok: false,
      field: "argPattern",
    });
    // a tool named like a shell is one tool of one server, not a blank cheque
    expect(allowAlwaysProblem({ pattern: "mcp:tools/bash" })).toBeNull();
  });

  it("never cover a program: the program matcher leaves them out", () => {
    const file = approvalsWith([entry("mcp:docs/search", { id: "m" }), entry("/usr/bin/git", { id: "g" })]);
    if (file.status !== "ok") throw new Error("fixture");
    const compiled = compileAllowlist(file.file, "codex", { home: "/h", platform: "linux" });
    expect(compiled.entries.map((c) => c.entry.id)).toEqual(["g"]);
  });
});

describe("MCP tool names per runtime", () => {
  it("Claude Code keeps - and makes other characters _; Codex makes - _ too", () => {
    const target = { server: "marker-srv.v2", tool: "get-issue" };
    expect(mcpToolName("claude", target)).toBe("mcp__marker-srv_v2__get-issue");
    expect(mcpToolName("codex", target)).toBe("mcp__marker_srv_v2__get_issue");
  });

  it("reads server and tool back from a name so that the proposed entry names that very tool again", () => {
    for (const [runtime, name] of [
      ["claude", "mcp__marker-srv__mark"],
      ["codex", "mcp__marker_srv__mark"],
      ["claude", "mcp__a__b__c"],
    ] as const) {
      const target = mcpTargetOfName(name)!;
      expect(mcpToolName(runtime, target), name).toBe(name);
    }
    expect(mcpTargetOfName("Bash")).toBeNull();
    expect(mcpTargetOfName("mcp__only")).toBeNull();
  });

  it("an entry matches the call only by the full name, and only while it is live", () => {
    const file = approvalsWith([
      entry("mcp:docs/search", { id: "live" }),
      entry("mcp:docs/old", { id: "expired", expiresAt: 1 }),
      entry("mcp:docs/once", { id: "used", usesLeft: 0 }),
    ]);
    if (file.status !== "ok") throw new Error("fixture");
    expect(matchMcpEntry(file.file, "codex", "codex", "mcp__docs__search", 10)).toEqual({
      entryId: "live",
      agentId: "*",
      limited: false,
    });
    expect(matchMcpEntry(file.file, "codex", "codex", "mcp__docs__old", 10)).toBeNull();
    expect(matchMcpEntry(file.file, "codex", "codex", "mcp__docs__once", 10)).toBeNull();
    expect(matchMcpEntry(file.file, "codex", "codex", "mcp__docs__search_all", 10)).toBeNull();
    expect(matchMcpEntry(file.file, "codex", "codex", "mcp__doc__search", 10)).toBeNull();
  });
});

describe("explaining a tool call", () => {
  it("an MCP tool with an entry runs by that rule; without one it is an allowlist miss that proposes its entry", () => {
    const covered = explainToolCall(mcp("codex", "mcp__docs__search"), {
      approvals: approvalsWith([entry("mcp:docs/search", { id: "m1" })]),
      now: 0,
    });
    expect(covered).toMatchObject({ outcome: "run", reason: "allowlist", matchedEntryIds: ["m1"] });
    const missed = explainToolCall(mcp("codex", "mcp__docs__drop"), { approvals: approvalsWith([]), now: 0 });
    expect(missed).toMatchObject({
      outcome: "prompt",
      reason: "allowlist-miss: no allowlist entry covers the MCP tool mcp__docs__drop",
      allowlistSatisfied: false,
      proposedEntries: [{ pattern: "mcp:docs/drop", segment: 0 }],
      allowAlwaysAvailable: true,
      command: { argv: ["mcp__docs__drop", '{"q":"x"}'] },
    });
    expect(toolCallOf(missed)).toEqual({
      runtime: "codex",
      tool: "mcp__docs__drop",
      kind: "mcp",
      what: "calls a tool of an MCP server",
      mcp: { server: "docs", tool: "drop" },
      input: '{"q":"x"}',
      workdir: "/w",
    });
    expect(nextStep("denied-by-policy", missed.reason, missed)).toBe(
      "gatehouse allowlist add --agent codex --mcp docs/drop",
    );
  });

  it.each([
    [{ security: "deny", ask: "on-miss" }, "deny", "security=deny"],
    [
      { security: "allowlist", ask: "on-miss" },
      "prompt",
      "needs-a-person: it reaches the network from this machine",
    ],
    [
      { security: "allowlist", ask: "off" },
      "deny",
      "needs-a-person: it reaches the network from this machine (ask=off)",
    ],
    [{ security: "allowlist", ask: "always" }, "prompt", "ask=always"],
    // full runs what Gatehouse understands, never a call it does not
    [
      { security: "full", ask: "off" },
      "deny",
      "needs-a-person: it reaches the network from this machine (ask=off)",
    ],
  ] as const)(
    "a call for a person under %j is decided like an allowlist miss: %s",
    (defaults, outcome, reason) => {
      const e = explainToolCall(person, {
        approvals: approvalsWith([entry("*")], { ...defaults, askFallback: "deny" }),
        now: 0,
      });
      expect(e).toMatchObject({ outcome, reason, allowlistSatisfied: false, allowAlwaysAvailable: false });
      expect(e.proposedEntries).toEqual([]);
    },
  );

  it("a request may only tighten: one asking for full is refused whole", () => {
    const e = explainToolCall(person, {
      approvals: approvalsWith([]),
      now: 0,
      requested: { security: "full" },
    });
    expect(e).toMatchObject({ outcome: "deny", reason: expect.stringMatching(/^request-loosens/) });
  });

  it("the input shown is shortened when long", () => {
    const e = explainToolCall(
      { ...person, input: "x".repeat(5_000) },
      { approvals: approvalsWith([]), now: 0 },
    );
    expect(toolCallOf(e)?.input).toMatch(/… \(3000 more characters\)$/);
    expect(e.command.argv![1]!.length).toBeLessThan(600);
  });
});
