// The refusal words and the one next step (issue 15 "Outcomes that say what happened").
import { describe, expect, it } from "vitest";
import { nextStep, outcomeKind, refusalText } from "../../../src/core/policy/outcome-text.js";

const facts = (over: Record<string, unknown> = {}) => ({
  agentId: "local",
  approvalsFile: { path: "/e/exec-approvals.json", status: "ok" as const },
  proposedEntries: [{ pattern: "/usr/bin/touch", segment: 0 }],
  command: { argv: ["touch", "x y"] },
  sources: { security: "defaults" as const, ask: "defaults" as const, askFallback: "defaults" as const },
  reason: "allowlist-miss",
  ...over,
});

describe("outcomes", () => {
  it("tells a person's denial, the policy's, nobody-to-ask and a timeout apart", () => {
    expect(outcomeKind("deny", "user")).toBe("denied-by-person");
    expect(outcomeKind("deny", "policy")).toBe("denied-by-policy");
    expect(outcomeKind("no-approver", "fallback")).toBe("no-approver");
    expect(outcomeKind("timeout", "fallback")).toBe("timeout");
    expect(outcomeKind("allow-once", "rule:x")).toBe("allowed");
  });

  it("ends every refusal with the one command that would change it", () => {
    expect(refusalText("deny", "user", "denied by user", facts())).toBe(
      "denied by a person (user): denied by user. Next: gatehouse allowlist add --agent local /usr/bin/touch",
    );
    expect(nextStep("timeout", "approval-timeout", facts({ proposedEntries: [] }))).toBe(
      "gatehouse policy explain --agent local -- touch 'x y'",
    );
    expect(nextStep("denied-by-policy", "security=deny", facts())).toBe(
      "pick a mode that runs commands: `gatehouse init --preset ask`",
    );
    expect(nextStep("denied-by-policy", "request-loosens: …", facts())).toContain("gatehouse elevate");
    expect(
      nextStep("no-approver", "no-approver", facts({ approvalsFile: { path: "p", status: "missing" } })),
    ).toContain("gatehouse init --preset ask");
    expect(nextStep("cancelled", "cancelled", facts())).toBeNull();
    expect(nextStep("allowed", "allowlist", facts())).toBeNull();
  });

  it("suggests no standing rule where one would be unwise (rm -rf ~): the explain line instead", () => {
    const home = facts({
      command: { command: "rm -rf ~" },
      proposedEntries: [{ pattern: "/usr/bin/rm", segment: 0 }],
      allowAlwaysWithheld: "deletes your whole home folder (/home/ada)",
    });
    expect(nextStep("denied-by-person", "denied by user", home)).toBe(
      "gatehouse policy explain --agent local --shell -- 'rm -rf ~'",
    );
    expect(nextStep("no-approver", "no-approver", home)).not.toContain("allowlist add");
  });

  it("for an unproven request, names the every-agent list and explains it as unproven", () => {
    const unproven = facts({ identity: "unproven", agentId: "claude-code" });
    expect(nextStep("denied-by-policy", "allowlist-miss", unproven)).toBe(
      "gatehouse allowlist add --agent '*' /usr/bin/touch",
    );
    expect(nextStep("timeout", "approval-timeout", { ...unproven, proposedEntries: [] })).toBe(
      "gatehouse policy explain --agent claude-code --unproven -- touch 'x y'",
    );
  });
});
