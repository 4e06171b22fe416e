// A grant limited to a number of runs ("the next 2 runs", exec-policy.md: `usesLeft`) holds for the
// requests an agent runs itself (`approval.request`: the hook of Claude Code or Codex), not only for
// what Gatehouse runs: each allowed request takes one use when it is decided, atomically, so neither
// one runner answering many connections at once nor two deciders of the same file can run it more
// often than the grant says. Real services, real socket, real approvals file.
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalClient } from "../../../src/approval-server/client.js";
import { approvalsStoreAt, type ApprovalsFile } from "../../../src/core/approvals/index.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { realProgram } from "../../support/programs.js";

let g: RunningGatehouse | null = null;
afterEach(async () => {
  await g?.stop();
  g = null;
});

const echo = realProgram("echo");

/** A runner whose allowlist covers echo for the next `uses` runs (askFallback deny: nobody to ask). */
async function grantFor(uses: number): Promise<RunningGatehouse> {
  g = await startGatehouse({ policy: { allow: [echo] } });
  await approvalsStoreAt(g.t.paths).updateEntry("*", g.entryIds[echo]!, { usesLeft: uses });
  return g;
}

function entryOnDisk(): ApprovalsFile["agents"][string]["allowlist"] {
  const file = JSON.parse(fs.readFileSync(g!.t.paths.approvals, "utf8")) as ApprovalsFile;
  return file.agents["*"]?.allowlist?.filter((e) => e.id === g!.entryIds[echo]);
}

async function allowed(client: ApprovalClient, word: string): Promise<boolean> {
  const result = await client.request("approval.request", { argv: ["echo", word], cwd: g!.t.home });
  if (result.status !== "ok") throw new Error(JSON.stringify(result));
  return (result.body as { decision: string }).decision === "allow-once";
}

describe("a grant for a number of runs, asked about by the agent's own hook", () => {
  it("allows exactly as many requests as it has uses, then no more", async () => {
    await grantFor(2);
    const client = await g!.client();
    const answers = [];
    for (const word of ["one", "two", "three", "four"]) answers.push(await allowed(client, word));
    expect(answers).toEqual([true, true, false, false]);
    expect(entryOnDisk()?.[0]?.usesLeft).toBe(0);
    const decisions = () => g!.auditLines().filter((l) => l.event === "decision");
    await waitFor(() => decisions().length === 4, { what: "the four decision lines" });
    // no person to ask: askFallback (deny) decides the requests the grant no longer covers
    expect(decisions().map((l) => l.decision)).toEqual([
      "allow-once",
      "allow-once",
      "no-approver",
      "no-approver",
    ]);
  });

  it("never allows more requests than it has uses when many connections ask at the same moment", async () => {
    await grantFor(3);
    const clients = await Promise.all(Array.from({ length: 8 }, () => g!.client()));
    const answers = await Promise.all(clients.map((client, i) => allowed(client, `at once ${i}`)));
    expect(answers.filter(Boolean)).toHaveLength(3);
    expect(entryOnDisk()?.[0]?.usesLeft).toBe(0);
  });

  it("notes its last use for the editor, as a run Gatehouse started would", async () => {
    await grantFor(5);
    const client = await g!.client();
    expect(await allowed(client, "noted")).toBe(true);
    await waitFor(() => entryOnDisk()?.[0]?.lastUsedCommand === "echo noted", { what: "the usage note" });
    expect(entryOnDisk()?.[0]).toMatchObject({ usesLeft: 4, lastResolvedPath: echo });
  });
});
