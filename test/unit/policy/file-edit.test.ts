// How the policy decides a file an agent's own tool reads or writes (core/policy/file-edit.ts): the
// settings of commands, with "inside the task's folder" in the place of "covered by the allowlist".
import { describe, expect, it } from "vitest";
import type { ApprovalsState } from "../../../src/core/approvals/index.js";
import {
  explainFileAccess,
  fileAccessOf,
  type FileAccessKind,
  type FileTarget,
} from "../../../src/core/policy/file-edit.js";
import type { Ask, AskFallback, Security } from "../../../src/core/policy/types.js";

const WORKDIR = "/home/u/Projects/app";

function approvals(security: Security, ask: Ask, askFallback: AskFallback = "deny"): ApprovalsState {
  return {
    status: "ok",
    path: "/home/u/.wegent-executor/exec-approvals.json",
    file: {
      version: 1,
      socket: { path: "/home/u/.wegent-executor/exec-approvals.sock", token: "t".repeat(43) },
      defaults: { security, ask, askFallback },
      agents: {},
    },
  };
}

const inside: FileTarget = { given: "src/a.ts", resolved: `${WORKDIR}/src/a.ts`, where: "inside" };
const outside: FileTarget = { given: "~/.bashrc", resolved: "/home/u/.bashrc", where: "outside" };
const secrets: FileTarget = {
  given: "/home/u/.wegent-executor/exec-approvals.json",
  resolved: "/home/u/.wegent-executor/exec-approvals.json",
  where: "gatehouse-data",
  detail: "Gatehouse's own data",
};

function explain(access: FileAccessKind, targets: FileTarget[], state: ApprovalsState) {
  return explainFileAccess(
    {
      tool: access === "write" ? "Write" : "Read",
      access,
      workdir: WORKDIR,
      targets,
      agentId: "claude-code",
    },
    { approvals: state },
  );
}

describe("explainFileAccess", () => {
  it.each([
    ["allowlist", "on-miss", "run", "inside-workdir"],
    ["allowlist", "off", "run", "inside-workdir"],
    ["full", "off", "run", "security=full"],
    ["allowlist", "always", "prompt", "ask=always"],
    ["deny", "on-miss", "deny", "security=deny"],
  ] as const)(
    "writing inside the task's folder under security=%s ask=%s: %s (%s)",
    (security, ask, outcome, reason) => {
      expect(explain("write", [inside], approvals(security, ask))).toMatchObject({ outcome, reason });
    },
  );

  it.each([
    ["allowlist", "on-miss", "prompt"],
    ["allowlist", "off", "deny"],
    ["full", "off", "run"],
    ["full", "always", "prompt"],
    ["deny", "off", "deny"],
  ] as const)("writing outside the folder under security=%s ask=%s: %s", (security, ask, outcome) => {
    expect(explain("write", [outside], approvals(security, ask)).outcome).toBe(outcome);
  });

  it("says which path is outside and where it lies, and never offers allow always", () => {
    const e = explain("write", [inside, outside], approvals("allowlist", "on-miss"));
    expect(e.reason).toBe("outside-workdir: ~/.bashrc is outside the task's folder");
    expect(e.allowlistSatisfied).toBe(false);
    expect(e.allowAlwaysAvailable).toBe(false);
    expect(e.proposedEntries).toEqual([]);
    expect(e.command).toEqual({ argv: ["Write", `${WORKDIR}/src/a.ts`, "/home/u/.bashrc"] });
    expect(explain("write", [outside], approvals("allowlist", "off")).reason).toBe(
      "outside-workdir (ask=off): ~/.bashrc is outside the task's folder",
    );
  });

  it("reading the task's own folder is never refused or asked about, whatever the settings", () => {
    for (const [security, ask] of [
      ["deny", "always"],
      ["allowlist", "always"],
      ["allowlist", "off"],
    ] as const) {
      expect(explain("read", [inside], approvals(security, ask))).toMatchObject({
        outcome: "run",
        reason: "inside-workdir",
      });
    }
    expect(explain("read", [outside], approvals("allowlist", "on-miss")).outcome).toBe("prompt");
    expect(explain("read", [outside], approvals("deny", "on-miss")).outcome).toBe("deny");
  });

  it("Gatehouse's own data is refused even under security=full", () => {
    for (const access of ["read", "write"] as const) {
      const e = explain(access, [inside, secrets], approvals("full", "off", "full"));
      expect(e.outcome).toBe("deny");
      expect(e.reason).toMatch(/^gatehouse-data: .*exec-approvals\.json is Gatehouse's own data/);
    }
  });

  it("a path in the folder where files run code later, protected or unresolved, is judged like outside", () => {
    for (const where of ["sensitive-inside", "protected", "unresolved"] as const) {
      const target: FileTarget = { given: "x", resolved: null, where, detail: "d" };
      expect(explain("write", [target], approvals("allowlist", "on-miss")).outcome).toBe("prompt");
      expect(explain("write", [target], approvals("allowlist", "off")).outcome).toBe("deny");
    }
  });

  it("an invalid approvals file denies everything but reading the folder", () => {
    const invalid: ApprovalsState = { status: "invalid", path: "/x.json", error: "broken" };
    expect(explain("write", [inside], invalid)).toMatchObject({
      outcome: "deny",
      reason: "approvals-file-invalid",
    });
    expect(explain("read", [outside], invalid).outcome).toBe("deny");
    expect(explain("write", [inside], invalid).approvalsFile).toEqual({
      path: "/x.json",
      status: "invalid",
      error: "broken",
    });
  });

  it("askFallback=allowlist allows what lies inside the folder (the allowlist's counterpart)", () => {
    expect(explain("write", [inside], approvals("allowlist", "always", "allowlist")).allowlistSatisfied).toBe(
      true,
    );
    expect(explain("write", [outside], approvals("full", "always", "allowlist")).allowlistSatisfied).toBe(
      false,
    );
  });
});

describe("fileAccessOf", () => {
  it("reads the file access back from an explanation, and null from anything else", () => {
    const e = explain("write", [outside], approvals("allowlist", "on-miss"));
    expect(fileAccessOf(e)).toEqual({
      tool: "Write",
      access: "write",
      workdir: WORKDIR,
      paths: [{ path: "/home/u/.bashrc", where: "outside" }],
    });
    expect(fileAccessOf(JSON.parse(JSON.stringify(e)))).toEqual(fileAccessOf(e));
    expect(fileAccessOf({ outcome: "run" })).toBeNull();
    expect(fileAccessOf(null)).toBeNull();
    expect(fileAccessOf({ fileAccess: { tool: "W", access: "delete", workdir: "/", paths: [] } })).toBeNull();
  });
});
