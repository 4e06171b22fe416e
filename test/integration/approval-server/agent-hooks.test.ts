// `gatehouse hook codex` and the file gate of `gatehouse hook claude`, run as the real CLI against a
// real `gatehouse serve` (or none), fed the hook input the agent CLIs send (codex-cli 0.169, claude
// 2.1.197). The end-to-end runs with the real agents are in test/integration/tasks/*-gate.test.ts.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestOnce } from "../../../src/approval-server/client.js";
import { approvalsStoreAt } from "../../../src/core/approvals/index.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy } from "./fixtures.js";
import { startServe, type ServeProcess } from "./serve-process.js";
import { realProgram } from "../../support/programs.js";

let t: TempHome;
let folder: string;
let transcript: string;
const running: ServeProcess[] = [];

beforeEach(async () => {
  t = await makeTempHome("gh-hooks-");
  folder = path.join(t.home, "Projects", "app");
  await fs.mkdir(folder, { recursive: true });
  transcript = path.join(t.home, "rollout.jsonl");
  await fs.writeFile(transcript, "");
});
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  await t.cleanup();
});

async function serve(): Promise<ServeProcess> {
  const s = await startServe(t.env);
  running.push(s);
  return s;
}

async function auditLines(): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(t.paths.audit, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Codex's hook input for an exec_command call, with the call in the transcript as Codex writes it. */
async function codexCommand(command: string, args: Record<string, unknown> = {}) {
  const callId = `call_${Math.random().toString(36).slice(2)}`;
  const item = {
    type: "response_item",
    payload: {
      type: "function_call",
      name: "exec_command",
      arguments: JSON.stringify({ cmd: command, ...args }),
      call_id: callId,
    },
  };
  await fs.appendFile(transcript, `${JSON.stringify(item)}\n`);
  return JSON.stringify({
    session_id: "thread-1",
    transcript_path: transcript,
    cwd: folder,
    hook_event_name: "PreToolUse",
    permission_mode: "bypassPermissions",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: callId,
  });
}

function codexTool(tool_name: string, tool_input: Record<string, unknown>) {
  return JSON.stringify({ session_id: "thread-1", cwd: folder, tool_name, tool_input, tool_use_id: "c1" });
}

const hookCodex = (input: string, env = t.env) =>
  runCli(["hook", "codex", "--workdir", folder, "--timeout", "5"], { env, input });

describe("gatehouse hook codex", () => {
  it("says nothing and exits 0 to allow; exits 2 with the reason on stderr to block (what Codex reads)", async () => {
    await writePolicy(t.paths, {
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: [realProgram("echo")],
    });
    await serve();
    const allowed = await hookCodex(await codexCommand("echo hi"));
    expect(allowed).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const denied = await hookCodex(await codexCommand("rm -rf build"));
    expect(denied.code).toBe(2);
    expect(denied.stdout).toBe("");
    expect(denied.stderr).toMatch(/^Gatehouse denied this command \(by policy\)/);
    expect(
      (await auditLines()).map((a) => [a.agentId, a.sessionKey, a.source, a.command, a.decision]),
    ).toEqual([
      ["codex", "codex:thread-1", "codex-hook", "echo hi", "allow-once"],
      ["codex", "codex:thread-1", "codex-hook", "rm -rf build", "deny"],
    ]);
  });

  it("uses task:<id> as the session inside a Gatehouse task", async () => {
    await writePolicy(t.paths, { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
    await serve();
    await hookCodex(await codexCommand("rm x"), { ...t.env, GATEHOUSE_TASK_ID: "77" });
    expect((await auditLines())[0]).toMatchObject({ agentId: "codex", sessionKey: "task:77" });
  });

  it("blocks what it cannot read without asking anyone", async () => {
    await writePolicy(t.paths, { defaults: { security: "full", ask: "off" } });
    await serve();
    for (const input of [
      "not json",
      JSON.stringify({ tool_input: {} }),
      codexTool("Bash", { command: "ls" }), // no transcript: its shell and folder cannot be checked
      await codexCommand("ls", { login: true }),
      codexTool("apply_patch", { command: "*** Begin Patch\n*** End Patch" }),
    ]) {
      const result = await hookCodex(input);
      expect(result.code, input).toBe(2);
      expect(result.stderr).toMatch(/Gatehouse/);
    }
    // A patch it cannot read is a person's call, which security=full does not cover: refused (ask=off)
    // and audited; the others were refused before anything was asked.
    expect((await auditLines()).map((a) => [a.decision, a.decidedBy])).toEqual([["deny", "policy"]]);
  }, 60_000);

  it("a tool it does not know and a shell that is not the analysed bash need a person: under ask=off refused and audited", async () => {
    await writePolicy(t.paths, { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
    await serve();
    for (const input of [
      codexTool("write_file", { path: "/etc/x" }),
      await codexCommand("ls", { shell: "zsh" }),
      await codexCommand("ls", { environment_id: "remote" }),
    ]) {
      const result = await hookCodex(input);
      expect(result.code, input).toBe(2);
      expect(result.stderr).toContain("needs-a-person");
    }
    expect((await auditLines()).map((a) => [a.command, a.decision, a.decidedBy])).toEqual([
      [`write_file '{"path":"/etc/x"}'`, "deny", "policy"],
      [`exec_command '{"cmd":"ls","shell":"zsh"}'`, "deny", "policy"],
      [`exec_command '{"cmd":"ls","environment_id":"remote"}'`, "deny", "policy"],
    ]);
  }, 60_000);

  it("answers harmless tools itself, and runs MCP tools only with an entry naming server and tool", async () => {
    await writePolicy(t.paths, { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
    expect(await hookCodex(codexTool("update_plan", { plan: [] }))).toMatchObject({ code: 0, stdout: "" });
    const mcp = codexTool("mcp__docs__search", { q: "x" });
    const refused = await hookCodex(mcp);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("no allowlist entry covers the MCP tool mcp__docs__search");
    expect(refused.stderr).toContain("gatehouse allowlist add --agent codex --mcp docs/search");
    await writePolicy(t.paths, {
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: ["mcp:docs/search"],
    });
    expect(await hookCodex(mcp)).toMatchObject({ code: 0, stdout: "" });
    expect(await hookCodex(codexTool("mcp__docs__delete", { q: "x" }))).toMatchObject({ code: 2 });
  }, 60_000);

  it("apply_patch outside the task's folder is decided by the file gate: refused under ask=off, audited", async () => {
    await writePolicy(t.paths, { defaults: { security: "allowlist", ask: "off", askFallback: "deny" } });
    await serve();
    const patch = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch\n`;
    const inside = await hookCodex(codexTool("apply_patch", { command: patch("notes.txt") }));
    expect(inside).toMatchObject({ code: 0, stderr: "" });
    const outside = await hookCodex(codexTool("apply_patch", { command: patch("../../.bashrc") }));
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("outside-workdir (ask=off)");
    expect(outside.stderr).toContain(".bashrc is outside the task's folder");
    expect((await auditLines()).map((a) => [a.command, a.decision, a.decidedBy])).toEqual([
      [`apply_patch ${path.join(folder, "notes.txt")}`, "allow-once", "policy"],
      [`apply_patch ${path.join(t.home, ".bashrc")}`, "deny", "policy"],
    ]);
  });

  it("with no Gatehouse running, askFallback decides here and the reason says so", async () => {
    await writePolicy(t.paths, { allow: [realProgram("echo")] });
    const denied = await hookCodex(await codexCommand("rm -rf build"));
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(/^Gatehouse is not running .*askFallback=deny/);
    expect(await hookCodex(await codexCommand("echo hi"))).toMatchObject({ code: 0 });
    const file = await hookCodex(codexTool("view_image", { path: path.join(t.home, "x.png") }));
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(
      /^Gatehouse is not running .*nobody could be asked, so askFallback=deny refused/,
    );
  });

  it("with no Gatehouse running, a grant for one run lets one command through and the next one not", async () => {
    const echo = realProgram("echo");
    const ids = await writePolicy(t.paths, { allow: [echo] });
    await approvalsStoreAt(t.paths).updateEntry("*", ids[echo]!, { usesLeft: 1 });
    expect(await hookCodex(await codexCommand("echo once"))).toMatchObject({ code: 0 });
    const again = await hookCodex(await codexCommand("echo twice"));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^Gatehouse is not running .*askFallback=deny/);
  });
});

describe("gatehouse hook claude: file tools", () => {
  const claude = (tool_name: string, tool_input: Record<string, unknown>) =>
    runCli(["hook", "claude", "--workdir", folder, "--timeout", "5"], {
      env: t.env,
      input: JSON.stringify({ session_id: "s-1", cwd: folder, tool_name, tool_input }),
    });
  const decision = (result: { json<T>(): T }) =>
    result.json<{ hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }>()
      .hookSpecificOutput;

  it("reading the task's folder is allowed here without asking or an audit line; Gatehouse's data never", async () => {
    await writePolicy(t.paths, { defaults: { security: "full", ask: "off" } });
    await serve();
    expect(decision(await claude("Read", { file_path: path.join(folder, "README.md") }))).toMatchObject({
      permissionDecision: "allow",
    });
    const secret = decision(await claude("Read", { file_path: t.paths.approvals }));
    expect(secret.permissionDecision).toBe("deny");
    expect(secret.permissionDecisionReason).toContain("Gatehouse's own data");
    expect((await auditLines()).map((a) => a.command)).toEqual([`Read ${t.paths.approvals}`]);
  });

  it("Write inside the folder is allowed by the policy; outside it waits for a person and askFallback decides", async () => {
    await writePolicy(t.paths);
    await serve();
    expect(
      decision(await claude("Write", { file_path: path.join(folder, "a.txt"), content: "" })),
    ).toMatchObject({ permissionDecision: "allow" });
    const outside = decision(await claude("Write", { file_path: path.join(t.home, ".bashrc"), content: "" }));
    expect(outside.permissionDecision).toBe("deny");
    expect(outside.permissionDecisionReason).toMatch(/^Gatehouse had nobody to ask \(by askFallback\)/);
  });
});

describe("gatehouse hook claude: every other tool", () => {
  const claude = (tool_name: string, tool_input: unknown) =>
    runCli(["hook", "claude", "--workdir", folder, "--timeout", "5"], {
      env: t.env,
      input: JSON.stringify({ session_id: "s-1", cwd: folder, tool_name, tool_input }),
    });
  const decision = (result: { json<T>(): T }) =>
    result.json<{ hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }>()
      .hookSpecificOutput;

  it("answers every call: a harmless tool allowed, one it does not know or cannot judge a person's, an MCP tool by entry", async () => {
    await writePolicy(t.paths, {
      defaults: { security: "allowlist", ask: "off", askFallback: "deny" },
      allow: ["mcp:docs/search"],
    });
    await serve();
    expect(decision(await claude("TodoWrite", { todos: [] }))).toMatchObject({
      permissionDecision: "allow",
      permissionDecisionReason: expect.stringContaining("Gatehouse allows TodoWrite"),
    });
    for (const [name, input] of [
      ["WebFetch", { url: "http://127.0.0.1:9/", prompt: "p" }],
      ["SomeNewTool", { x: 1 }],
      ["Read", { file_path: path.join(folder, "a"), encoding: "latin1" }],
    ] as const) {
      const answer = decision(await claude(name, input));
      expect(answer.permissionDecision, name).toBe("deny");
      expect(answer.permissionDecisionReason, name).toContain("needs-a-person");
    }
    expect(decision(await claude("mcp__docs__search", { q: "x" }))).toMatchObject({
      permissionDecision: "allow",
    });
    expect(decision(await claude("mcp__docs__drop", {}))).toMatchObject({ permissionDecision: "deny" });
    expect((await auditLines()).map((a) => [String(a.command).split(" ")[0], a.decision])).toEqual([
      ["WebFetch", "deny"],
      ["SomeNewTool", "deny"],
      ["Read", "deny"],
      ["mcp__docs__search", "allow-once"],
      ["mcp__docs__drop", "deny"],
    ]);
  }, 60_000);
});

describe("approval.request with a tool call", () => {
  it("refuses a body that names a tool call and a command or a file, or a relative folder", async () => {
    await writePolicy(t.paths);
    await serve();
    const tool = {
      runtime: "codex",
      name: "mcp__docs__search",
      kind: "mcp",
      what: "searches",
      workdir: folder,
    };
    for (const body of [
      { command: "ls", tool },
      { tool, file: { tool: "Write", access: "write", paths: ["/x"], workdir: folder } },
      { tool: { ...tool, workdir: "relative" } },
      { tool: { ...tool, kind: "command" } },
    ]) {
      const result = await requestOnce(t.paths, "approval.request", body);
      expect(result, JSON.stringify(body)).toMatchObject({ status: "error", code: "bad_request" });
    }
  });
});

describe("approval.request with a file access", () => {
  it("refuses a body that names both a command and a file", async () => {
    await writePolicy(t.paths);
    await serve();
    const result = await requestOnce(t.paths, "approval.request", {
      command: "ls",
      file: { tool: "Write", access: "write", paths: ["/x"], workdir: folder, runtime: "claude" },
    });
    expect(result).toMatchObject({ status: "error", code: "bad_request" });
    const relative = await requestOnce(t.paths, "approval.request", {
      file: { tool: "Write", access: "write", paths: ["/x"], workdir: "relative/dir", runtime: "claude" },
    });
    expect(relative).toMatchObject({ status: "error", code: "bad_request" });
  });
});
