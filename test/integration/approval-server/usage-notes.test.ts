// Usage notes of a running runner (real services, real socket, real approvals file): `exec.run`s covered
// by an entry leave lastUsedAt/lastUsedCommand in the file a moment later, with the time of the use;
// the runner does not read its own note back; and an edit by anyone else made right after a note
// (in place with the same size, or a file renamed over it) decides the next requests, as before.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalClient } from "../../../src/approval-server/client.js";
import type { AllowlistEntry, ApprovalsFile } from "../../../src/core/approvals/index.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, type RunningGatehouse } from "./fixtures.js";
import { realProgram } from "../../support/programs.js";

let g: RunningGatehouse | null = null;
afterEach(async () => {
  await g?.stop();
  g = null;
});

const echo = realProgram("echo");

function entryOnDisk(): AllowlistEntry | undefined {
  const file = JSON.parse(fs.readFileSync(g!.t.paths.approvals, "utf8")) as ApprovalsFile;
  return file.agents["*"]?.allowlist?.find((e) => e.id === g!.entryIds[echo]);
}

async function runsEcho(client: ApprovalClient, word: string): Promise<boolean> {
  const result = await client.request("exec.run", { argv: ["echo", word], cwd: g!.t.home });
  return result.status === "ok" && (result.body as { decision: string }).decision === "allow-once";
}

/** The same file with the entry's pattern spelled differently at the same length (it covers nothing). */
function withoutEcho(text: string): string {
  const other = `${echo.slice(0, -1)}${echo.endsWith("Z") ? "Y" : "Z"}`;
  expect(text).toContain(`"pattern": "${echo}"`);
  return text.replace(`"pattern": "${echo}"`, `"pattern": "${other}"`);
}

async function startWithNote(): Promise<ApprovalClient> {
  g = await startGatehouse({ policy: { allow: [echo] } });
  const client = await g.client();
  expect(await runsEcho(client, "first")).toBe(true);
  await waitFor(() => entryOnDisk()?.lastUsedCommand === "echo first", { what: "the usage note" });
  return client;
}

describe("usage notes of a running runner", () => {
  it("writes when each entry was used a moment later, and never reads its own note back", async () => {
    g = await startGatehouse({ policy: { allow: [echo] } });
    const client = await g.client();
    expect(await runsEcho(client, "warm")).toBe(true);
    const reads = g.services.approvals.reads;
    const before = Date.now();
    for (const word of ["one", "two", "three"]) expect(await runsEcho(client, word)).toBe(true);
    const after = Date.now();
    await waitFor(() => entryOnDisk()?.lastUsedCommand === "echo three", { what: "the usage note" });
    const note = entryOnDisk()!;
    expect(note.lastResolvedPath).toBe(echo);
    // the time of the last use, not of the write that gathered it
    expect(note.lastUsedAt).toBeGreaterThanOrEqual(before);
    expect(note.lastUsedAt).toBeLessThanOrEqual(after);
    for (const word of ["four", "five"]) expect(await runsEcho(client, word)).toBe(true);
    expect(g.services.approvals.reads).toBe(reads);
  });

  it("decides by an edit made in place, with the same size, right after its note", async () => {
    const client = await startWithNote();
    const file = g!.t.paths.approvals;
    const size = fs.statSync(file).size;
    fs.writeFileSync(file, withoutEcho(fs.readFileSync(file, "utf8")));
    expect(fs.statSync(file).size).toBe(size);
    await waitFor(async () => !(await runsEcho(client, "after the edit")), {
      what: "the edit to decide",
    });
  });

  it("decides by a file renamed over it right after its note", async () => {
    const client = await startWithNote();
    const file = g!.t.paths.approvals;
    const temp = path.join(path.dirname(file), ".editor-save");
    fs.writeFileSync(temp, withoutEcho(fs.readFileSync(file, "utf8")), { mode: 0o600 });
    fs.renameSync(temp, file);
    await waitFor(async () => !(await runsEcho(client, "after the rename")), {
      what: "the renamed file to decide",
    });
  });
});
