// Codex patches through `gatehouse hook codex` (the real CLI) against a real `gatehouse serve`: the files
// a patch touches are the ones Codex's own grammar names (src/core/policy/apply-patch-grammar.ts),
// whether the patch comes from the apply_patch tool or from an `apply_patch <<'EOF'` command Codex
// applies itself. Ordinary patches inside the task's folder need nobody (the false-positive list,
// test/fixtures/policy/ordinary-patches.ts); the attack classes of issue 27 never pass unseen.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { ORDINARY_PATCHES } from "../../fixtures/policy/ordinary-patches.js";
import { writePolicy } from "./fixtures.js";
import { startServe, type ServeProcess } from "./serve-process.js";

let t: TempHome;
let folder: string;
let transcript: string;
let server: ServeProcess;

beforeAll(async () => {
  t = await makeTempHome("gh-codex-patches-");
  folder = path.join(t.home, "Projects", "app");
  await fs.mkdir(folder, { recursive: true });
  transcript = path.join(t.home, "rollout.jsonl");
  await fs.writeFile(transcript, "");
  // Allowlist only, nobody to ask: inside the folder runs, anything else is refused (and audited).
  await writePolicy(t.paths, { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
  server = await startServe(t.env);
});
afterAll(async () => {
  await server?.stop();
  await t?.cleanup();
});

async function auditLines(): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(t.paths.audit, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const applyPatch = (patch: string) =>
  JSON.stringify({
    session_id: "thread-1",
    cwd: folder,
    tool_name: "apply_patch",
    tool_input: { command: patch },
    tool_use_id: "c1",
  });

/** Codex's hook input for an exec_command, with the call in the transcript as Codex writes it. */
async function execCommand(command: string) {
  const callId = `call_${Math.random().toString(36).slice(2)}`;
  const payload = {
    type: "function_call",
    name: "exec_command",
    arguments: JSON.stringify({ cmd: command }),
    call_id: callId,
  };
  await fs.appendFile(transcript, `${JSON.stringify({ type: "response_item", payload })}\n`);
  return JSON.stringify({
    session_id: "thread-1",
    transcript_path: transcript,
    cwd: folder,
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: callId,
  });
}

const hookCodex = (input: string) =>
  runCli(["hook", "codex", "--workdir", folder, "--timeout", "5"], { env: t.env, input });

describe("Codex patches through the hook", () => {
  it("every ordinary patch inside the task's folder runs without a person", async () => {
    const needed: string[] = [];
    for (const ordinary of ORDINARY_PATCHES) {
      const result = await hookCodex(applyPatch(ordinary.patch));
      if (result.code !== 0) needed.push(`${ordinary.what}: ${result.stderr.trim()}`);
    }
    console.log(
      `ordinary patches: ${ORDINARY_PATCHES.length - needed.length} of ${ORDINARY_PATCHES.length} ran without a person`,
    );
    expect(needed).toEqual([]);
  }, 120_000);

  it("an ordinary patch sent as `apply_patch <<'EOF'` through exec_command is judged as that patch", async () => {
    const [first] = ORDINARY_PATCHES;
    const inside = await hookCodex(await execCommand(`apply_patch <<'EOF'\n${first!.patch}EOF\n`));
    expect(inside).toMatchObject({ code: 0, stderr: "" });
    const outside = await hookCodex(
      await execCommand(
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ../../up.txt\n+x\n*** End Patch\nEOF\n",
      ),
    );
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("up.txt is outside the task's folder");
    expect((await auditLines()).at(-1)).toMatchObject({
      agentId: "codex",
      command: `apply_patch ${path.join(t.home, "up.txt")}`,
      decision: "deny",
      decidedBy: "policy",
    });
  }, 60_000);

  it("a NEL before a header is read as Codex reads it: the file gate sees the approvals file and refuses it, audited", async () => {
    const approvals = path.relative(folder, t.paths.approvals);
    const attack = `*** Begin Patch\n*** Add File: notes.txt\n+x\n\u0085*** Add File: ${approvals}\n+{}\n*** End Patch\n`;
    const result = await hookCodex(applyPatch(attack));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Gatehouse's own data");
    expect((await auditLines()).at(-1)).toMatchObject({
      agentId: "codex",
      command: `apply_patch ${path.join(folder, "notes.txt")} ${t.paths.approvals}`,
      decision: "deny",
    });
  }, 60_000);

  it("a path with a line separator, a carriage return or a BOM, or a command form Gatehouse does not read, is a person's call (refused with nobody to ask)", async () => {
    for (const input of [
      applyPatch("*** Begin Patch\n*** Add File: ../x\u2028y\n+x\n*** End Patch"),
      applyPatch("*** Begin Patch\n*** Add File: ../x\ry\n+x\n*** End Patch"),
      applyPatch("*** Begin Patch\n*** Delete File: \ufeff../x\n*** End Patch"),
      applyPatch("*** Begin Patch\n*** Environment ID: remote\n*** Add File: a\n+x\n*** End Patch"),
      await execCommand(
        "true && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF",
      ),
    ]) {
      const result = await hookCodex(input);
      expect(result.code, input).toBe(2);
      expect(result.stderr).toContain(
        "needs-a-person: Gatehouse cannot be sure it reads this patch the way Codex applies it",
      );
    }
  }, 60_000);
});
