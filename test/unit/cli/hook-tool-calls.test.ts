// What each runtime's PreToolUse input becomes (cli/hook/claude.ts, codex.ts and their tool tables
// claude-tools.ts, codex-tools.ts): a command for the command gate, paths for the file gate, an MCP call,
// an explicit allow for a harmless tool, a refusal, or a call for a person (an unknown tool, field or
// value). The inputs are the ones the real CLIs gave their hooks (Claude Code 2.1.332 and 2.1.197, Codex
// 0.171 and 0.169, scripted model endpoints); Codex call arguments are read back from a transcript file
// in the format those versions write.
import { realpathSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeToolCall } from "../../../src/cli/hook/claude.js";
import { CLAUDE_TOOLS } from "../../../src/cli/hook/claude-tools.js";
import { codexToolCall } from "../../../src/cli/hook/codex.js";
import {
  codexBashProgram,
  codexCommandFolder,
  codexShellType,
  execCommandCall,
} from "../../../src/cli/hook/codex-exec.js";
import { CODEX_TOOLS } from "../../../src/cli/hook/codex-tools.js";
import { findCalls } from "../../../src/cli/hook/codex-transcript.js";
import { findBash } from "../../../src/executor/shells.js";
import { codexOpenedPath } from "../../../src/core/workdir/runtime-path.js";
import { SKILL_TOOL_NAME } from "../../../src/shared/skill-tool-names.js";

const CWD = "/work/app";
/** A command Codex applies itself as a patch (`apply_patch <<'EOF' …`), after `cd`. */
const heredoc = (cd: string) =>
  `${cd}apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch\nEOF\n`;

describe("Claude Code's tool table", () => {
  const call = (tool_name: string, tool_input: unknown) =>
    claudeToolCall({ tool_name, tool_input }, { cwd: CWD });

  it("Bash and Monitor's command are commands in the session's folder", async () => {
    expect(await call("Bash", { command: "npm test", description: "Run the tests" })).toEqual({
      kind: "command",
      command: "npm test",
      cwd: CWD,
    });
    expect(await call("Monitor", { description: "d", timeout_ms: 1000, command: "ls" })).toEqual({
      kind: "command",
      command: "ls",
      cwd: CWD,
    });
    expect(
      await call("Monitor", { description: "d", timeout_ms: 1, ws: { url: "ws://127.0.0.1:1" } }),
    ).toMatchObject({
      kind: "person",
    });
  });

  it("the edit tools write the file they name; the read tools read it (inputs as 2.1.332 sends them)", async () => {
    expect(await call("Write", { file_path: "/x/a", content: "" })).toEqual({
      kind: "file",
      tool: "Write",
      access: "write",
      paths: ["/x/a"],
      runtime: "claude",
      base: CWD,
    });
    expect(
      await call("Edit", { file_path: "/x/a", old_string: "hi", new_string: "ho", replace_all: false }),
    ).toMatchObject({ access: "write", paths: ["/x/a"] });
    expect(
      await call("MultiEdit", { file_path: "/x/a", edits: [{ old_string: "a", new_string: "b" }] }),
    ).toMatchObject({ access: "write" });
    expect(await call("NotebookEdit", { notebook_path: "/x/n.ipynb", new_source: "x" })).toMatchObject({
      access: "write",
      paths: ["/x/n.ipynb"],
    });
    expect(await call("Read", { file_path: "/x/a", offset: 10, limit: 5 })).toMatchObject({
      access: "read",
      paths: ["/x/a"],
    });
  });

  it("Grep and Glob search their folder (the session's by default) and where an absolute pattern leads", async () => {
    expect(await call("Grep", { pattern: "TODO", output_mode: "content", "-n": true })).toMatchObject({
      access: "read",
      paths: [CWD],
    });
    expect(await call("Glob", { pattern: "**/*.ts", path: "/x" })).toMatchObject({ paths: ["/x"] });
    expect(await call("Glob", { pattern: "/home/u/.ssh/*" })).toMatchObject({ paths: [CWD, "/home/u/.ssh"] });
    expect(await call("Glob", { pattern: "../../other/**/*.env" })).toMatchObject({
      paths: [CWD, path.join(CWD, "../../other")],
    });
  });

  it("harmless tools are allowed explicitly, saying why", async () => {
    for (const [name, input] of [
      ["Agent", { description: "Find uses", prompt: "Find every use of x", subagent_type: "Explore" }],
      ["TodoWrite", { todos: [{ content: "a", status: "pending", activeForm: "Doing a" }] }],
      ["WebSearch", { query: "zod mini" }],
      ["ScheduleWakeup", { delaySeconds: 60, reason: "r", prompt: "p" }],
      ["CronList", {}],
      ["TaskCreate", { subject: "s", description: "d" }],
      ["TaskStop", { task_id: "b1" }],
      ["ToolSearch", { query: "select:WebFetch", max_results: 5 }],
      ["ExitPlanMode", { plan: "1. do it" }],
    ] as const) {
      expect(await call(name, input), name).toMatchObject({
        kind: "allow",
        reason: expect.stringContaining(`Gatehouse allows ${name}`),
      });
    }
  });

  it("tools that run programs outside the gate are refused; a sub-agent in a worktree too", async () => {
    for (const name of ["EnterWorktree", "ExitWorktree", "Workflow", "REPL", "LSP"]) {
      expect(await call(name, { name: "wt" }), name).toMatchObject({
        kind: "refuse",
        reason: expect.stringContaining("outside the gate"),
      });
    }
    expect(await call("Agent", { description: "d", prompt: "p", isolation: "worktree" })).toMatchObject({
      kind: "refuse",
    });
  });

  it("WebFetch, Claude Code's own Skill tool and tools that reach beyond the task need a person", async () => {
    expect(await call("WebFetch", { url: "http://127.0.0.1:8080/admin", prompt: "summarise" })).toMatchObject(
      {
        kind: "person",
        tool: "WebFetch",
        what: "fetches http://127.0.0.1:8080/admin from this machine",
      },
    );
    for (const name of ["Skill", "CronCreate", "SendMessage", "ReadMcpResourceTool", "PowerShell"])
      expect(await call(name, {}), name).toMatchObject({ kind: "person", tool: name });
    expect(await call("Agent", { description: "d", prompt: "p", mode: "bypassPermissions" })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("bypassPermissions"),
    });
  });

  it("MCP tools are MCP calls naming their server and tool; Gatehouse's own Skill tool is allowed", async () => {
    expect(await call("mcp__marker-srv__mark", { note: "hi" })).toEqual({
      kind: "mcp",
      name: "mcp__marker-srv__mark",
      server: "marker-srv",
      tool: "mark",
      input: '{"note":"hi"}',
    });
    expect(await call(SKILL_TOOL_NAME, { skill: "x" })).toMatchObject({ kind: "allow" });
  });

  it("an unknown tool, an unknown field, a wrong type and an unknown enum value each need a person", async () => {
    expect(await call("NoSuchTool", { a: 1 })).toMatchObject({
      kind: "person",
      tool: "NoSuchTool",
      reason: expect.stringContaining('does not know Claude Code\'s tool "NoSuchTool"'),
      input: '{"a":1}',
    });
    expect(await call("Write", { file_path: "/x/a", content: "", mode: "0755" })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining('a field Gatehouse does not know ("mode")'),
    });
    expect(await call("Bash", { command: ["rm", "-rf", "/"] })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining('"command" is not a string'),
    });
    expect(await call("Bash", JSON.parse('{"command":"ls","__proto__":{"x":1}}'))).toMatchObject({
      kind: "person",
    });
    expect(
      await call("TodoWrite", { todos: [{ content: "a", status: "blocked", activeForm: "a" }] }),
    ).toMatchObject({ kind: "person", reason: expect.stringContaining('"todos.0.status" has a value') });
    expect(await call("Read", { file_path: "" })).toMatchObject({ kind: "person" });
    expect(await call("Read", undefined)).toMatchObject({ kind: "person" });
    expect(await call("constructor", {})).toMatchObject({ kind: "person" });
  });

  it("every row of the table has plain words for what the tool does", () => {
    for (const [name, spec] of Object.entries(CLAUDE_TOOLS))
      expect(spec.what.length, name).toBeGreaterThan(5);
  });
});

describe("Codex's tool table", () => {
  let dir: string;
  let transcript: string;
  let bash: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "gh-codex-transcript-"));
    transcript = path.join(dir, "rollout.jsonl");
    bash = (await findBash())!;
    await fs.mkdir(path.join(dir, "tools"));
    await fs.writeFile(path.join(dir, "tools", "bash"), "#!/bin/sh\necho not bash\n", { mode: 0o755 });
    const line = (callId: string, args: Record<string, unknown>, name = "exec_command") =>
      JSON.stringify({
        timestamp: "2026-11-24T15:25:02.773Z",
        type: "response_item",
        payload: { type: "function_call", name, arguments: JSON.stringify(args), call_id: callId },
      });
    await fs.writeFile(
      transcript,
      [
        JSON.stringify({ type: "session_meta", payload: { id: "s" } }),
        line("call_plain", { cmd: "ls", yield_time_ms: 1000, max_output_tokens: 4000 }),
        line("call_zsh", { cmd: "ls", shell: "/usr/bin/zsh" }),
        line("call_bash", { cmd: "ls", shell: bash }),
        line("call_bash_name", { cmd: "ls", shell: "bash" }),
        line("call_fake_bash", { cmd: "ls", shell: path.join(dir, "tools", "bash") }),
        line("call_rel_bash", { cmd: "ls", shell: "tools/bash" }),
        line("call_sh", { cmd: "ls", shell: "sh" }),
        line("call_workdir", { cmd: "cat exec-approvals.json", workdir: "/home/u/.wegent-executor" }),
        line("call_rel_workdir", { cmd: "ls", workdir: "sub/../src" }),
        line("call_login", { cmd: "ls", login: true }),
        line("call_tty", { cmd: "ls", tty: true }),
        line("call_extra", { cmd: "ls", environment_id: "remote-1" }),
        line("call_escalated", {
          cmd: "ls",
          sandbox_permissions: "require_escalated",
          justification: "j",
          prefix_rule: ["ls"],
        }),
        line("call_bad_enum", { cmd: "ls", sandbox_permissions: "with_additional_permissions" }),
        line("call_other_cmd", { cmd: "rm -rf ~" }),
        line("call_shell_tool", { command: ["ls"] }, "shell"),
        line("call_twice", { cmd: "ls", shell: path.join(dir, "tools", "bash") }),
        line("call_twice", { cmd: "ls" }),
        line("call_patch", { cmd: heredoc("") }),
        line("call_patch_cd", { cmd: heredoc("cd sub && ") }),
        line("call_patch_workdir", { cmd: heredoc("cd sub && "), workdir: "pkg" }),
        line("call_patch_echo", { cmd: `echo x && ${heredoc("")}` }),
        "not json",
      ].join("\n"),
    );
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  const call = (tool_name: string, tool_input: unknown, tool_use_id = "call_plain", cwd = CWD) =>
    codexToolCall(
      { tool_name, tool_input, transcript_path: transcript, tool_use_id, cwd },
      { cwd, workdir: CWD },
    );

  it("reads every call with an id back from the transcript, with the function's name", async () => {
    expect(findCalls(transcript, "call_zsh")).toEqual([
      { name: "exec_command", arguments: { cmd: "ls", shell: "/usr/bin/zsh" } },
    ]);
    expect(findCalls(transcript, "call_twice")).toHaveLength(2);
    expect(findCalls(transcript, "call_missing")).toEqual([]);
  });

  it("a command with the default shell, or the very bash Gatehouse analyses for, goes to the command gate", async () => {
    expect(await call("Bash", { command: "ls" })).toEqual({ kind: "command", command: "ls", cwd: CWD });
    expect(await call("Bash", { command: "ls" }, "call_bash")).toMatchObject({ kind: "command" });
    expect(await call("Bash", { command: "ls" }, "call_escalated")).toMatchObject({ kind: "command" });
  });

  it("a shell that is not that bash needs a person: another shell, a file named bash, a relative path", async () => {
    expect(await call("Bash", { command: "ls" }, "call_zsh")).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("not bash"),
    });
    expect(await call("Bash", { command: "ls" }, "call_sh")).toMatchObject({ kind: "person" });
    // the named file is never what Codex starts: only the type counts, and the bash it finds does
    expect(await call("Bash", { command: "ls" }, "call_fake_bash")).toMatchObject({ kind: "command" });
    // two calls under one id: the hook cannot tell which one it is asked about
    expect(await call("Bash", { command: "ls" }, "call_twice")).toMatchObject({ kind: "person" });
  });

  it("Codex's shell lookup: the type from the name; then the login shell, bash on PATH (relative folders from Codex's), /bin/bash", () => {
    expect(codexShellType("/opt/x/bash")).toBe("bash");
    expect(codexShellType("bash.exe")).toBe("bash");
    expect(codexShellType("W/tools/bash")).toBe("bash");
    expect(codexShellType("fish")).toBeNull();
    expect(codexShellType("pwsh")).toBe("powershell");
    const lookup = { processCwd: dir, pathEnv: "/nonexistent", loginShell: null };
    expect(codexBashProgram({ ...lookup, loginShell: bash })).toEqual({ program: bash });
    expect(codexBashProgram({ ...lookup, pathEnv: path.join(dir, "tools") })).toEqual({
      program: path.join(dir, "tools", "bash"),
    });
    expect(codexBashProgram({ ...lookup, pathEnv: "tools:/usr/bin" })).toEqual({
      program: path.join(dir, "tools", "bash"),
    });
    expect(codexBashProgram({ ...lookup, loginShell: "/usr/bin/zsh" })).toMatchObject({
      program: expect.stringMatching(/\/bash$/),
    });
  });

  it("a bash Codex would find on its PATH that is not the analysed one needs a person (a relative PATH folder in the task)", async () => {
    const ctx = {
      command: "ls",
      hookCwd: dir,
      turnCwd: dir,
      shells: { processCwd: dir, pathEnv: "tools:/usr/bin:/bin", loginShell: "/usr/bin/zsh" },
    };
    expect(await execCommandCall({ cmd: "ls", shell: "bash" }, ctx)).toMatchObject({
      kind: "person",
      reason: expect.stringContaining(
        `would start ${path.join(dir, "tools", "bash")}, not the bash Gatehouse analyses`,
      ),
    });
    expect(
      await execCommandCall(
        { cmd: "ls", shell: "bash" },
        { ...ctx, shells: { ...ctx.shells, loginShell: bash } },
      ),
    ).toMatchObject({ kind: "command" });
  });

  it("workdir is the command's folder, joined and cleaned as Codex does; it must agree with the hook's cwd", async () => {
    expect(codexCommandFolder("/w", "sub/../src")).toBe("/w/src");
    expect(codexCommandFolder("/w", "/etc/../usr/./lib/")).toBe("/usr/lib/");
    expect(codexCommandFolder("/w", "~/y")).toBe("/w/~/y");
    expect(codexCommandFolder("/w", " /etc")).toBe("/w/ /etc");
    expect(codexCommandFolder("/w", "")).toBe("/w");
    const e = "/home/u/.wegent-executor";
    expect(await call("Bash", { command: "cat exec-approvals.json" }, "call_workdir", e)).toEqual({
      kind: "command",
      command: "cat exec-approvals.json",
      cwd: e,
      cwdChosen: true,
    });
    expect(await call("Bash", { command: "ls" }, "call_rel_workdir", `${CWD}/src`)).toMatchObject({
      cwd: `${CWD}/src`,
      cwdChosen: true,
    });
    expect(await call("Bash", { command: "ls" }, "call_rel_workdir", CWD)).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("Codex says the command runs in"),
    });
  });

  it("login, tty are refused; an unknown field or value, another command text or another exec tool need a person", async () => {
    expect(await call("Bash", { command: "ls" }, "call_login")).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining('without "login"'),
    });
    expect(await call("Bash", { command: "ls" }, "call_tty")).toMatchObject({ kind: "refuse" });
    expect(await call("Bash", { command: "ls" }, "call_extra")).toMatchObject({
      kind: "person",
      reason: expect.stringContaining('"environment_id"'),
    });
    expect(await call("Bash", { command: "ls" }, "call_bad_enum")).toMatchObject({ kind: "person" });
    expect(await call("Bash", { command: "ls" }, "call_other_cmd")).toMatchObject({ kind: "person" });
    expect(await call("Bash", { command: "ls" }, "call_shell_tool")).toMatchObject({
      kind: "person",
      reason: expect.stringContaining('"shell" tool'),
    });
    expect(await call("Bash", { command: "ls", cwd: "/" })).toMatchObject({ kind: "person" });
  });

  it("a command the transcript does not show is refused with the reason", async () => {
    await expect(
      codexToolCall({ tool_name: "Bash", tool_input: { command: "ls" } }, { cwd: CWD }),
    ).resolves.toMatchObject({ kind: "refuse" });
    await expect(
      codexToolCall(
        {
          tool_name: "Bash",
          tool_input: { command: "ls" },
          transcript_path: path.join(dir, "none"),
          tool_use_id: "x",
        },
        { cwd: CWD },
      ),
    ).resolves.toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("not in Codex's transcript"),
    });
  }, 15_000);

  it("apply_patch writes every file its patch names, a move both ends, as Codex opens them; view_image reads its file", async () => {
    const patch = "*** Begin Patch\n*** Update File: a.ts\n*** Move to: ../b.ts\n@@\n-x\n+y\n*** End Patch\n";
    expect(await call("apply_patch", { command: patch })).toEqual({
      kind: "file",
      tool: "apply_patch",
      access: "write",
      paths: ["a.ts", "../b.ts"],
      runtime: "codex",
      base: CWD,
    });
    expect(await call("view_image", { path: "x.png" })).toEqual({
      kind: "file",
      tool: "view_image",
      access: "read",
      paths: ["x.png"],
      runtime: "codex",
    });
  });

  it("a patch Gatehouse does not read as Codex does, or in a form it does not know, needs a person, with the reason", async () => {
    expect(await call("apply_patch", { command: "*** Begin Patch\n*** End Patch\n" })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("the patch names no file"),
    });
    const separator = "*** Begin Patch\n*** Add File: ../x\u2028y\n+x\n*** End Patch";
    expect(await call("apply_patch", { command: separator })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("U+2028"),
    });
    // A NEL before a header is read as Codex reads it: the header counts, and the file gate judges its path.
    // `..` is collapsed as text and `~` is a name, as Codex does before it touches the disk.
    const dots = "*** Begin Patch\n*** Add File: link/../../x\n+x\n*** Add File: ~/y\n+y\n*** End Patch";
    expect(await call("apply_patch", { command: dots })).toMatchObject({
      paths: ["link/../../x", "~/y"],
      runtime: "codex",
      base: CWD,
    });
    const opened = (raw: string) => codexOpenedPath(raw, { platform: "linux", home: "/home/u", base: CWD });
    expect(opened("link/../../x")).toMatchObject({ ok: true, path: "/work/x" });
    expect(opened("~/y")).toMatchObject({ ok: true, path: "/work/app/~/y" });
    const nel = "*** Begin Patch\n\u0085*** Add File: ../../x\n+x\n*** End Patch";
    expect(await call("apply_patch", { command: nel })).toMatchObject({ kind: "file", paths: ["../../x"] });
    expect(
      await call("apply_patch", {
        command: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
        input: "x",
      }),
    ).toMatchObject({ kind: "person", reason: expect.stringContaining("fields: command, input") });
    expect(await call("apply_patch", { input: "*** Begin Patch\n*** End Patch" })).toMatchObject({
      kind: "person",
    });
  });

  it("an exec_command Codex applies as a patch is the patch's write, from its workdir and `cd`", async () => {
    expect(await call("Bash", { command: heredoc("") }, "call_patch")).toEqual({
      kind: "file",
      tool: "apply_patch",
      access: "write",
      paths: ["n.txt"],
      runtime: "codex",
      base: CWD,
    });
    expect(await call("Bash", { command: heredoc("cd sub && ") }, "call_patch_cd")).toMatchObject({
      kind: "file",
      paths: ["n.txt"],
      base: path.join(CWD, "sub"),
    });
    const pkg = path.join(CWD, "pkg");
    expect(await call("Bash", { command: heredoc("cd sub && ") }, "call_patch_workdir", pkg)).toMatchObject({
      kind: "file",
      paths: ["n.txt"],
      base: path.join(CWD, "pkg", "sub"),
    });
    expect(await call("Bash", { command: `echo x && ${heredoc("")}` }, "call_patch_echo")).toMatchObject({
      kind: "person",
      reason: expect.stringContaining("in a form Gatehouse does not read"),
    });
  });

  it("harmless tools are allowed explicitly (inputs as 0.171 and 0.169 send them)", async () => {
    for (const [name, input] of [
      ["update_plan", { plan: [{ step: "a", status: "pending" }] }],
      ["get_goal", {}],
      ["create_goal", { objective: "ship it" }],
      ["update_goal", { status: "complete" }],
      ["request_user_input", { questions: [] }],
      ["spawn_agent", { message: "hi" }],
      ["multi_agent_v1wait_agent", { targets: ["a1"], timeout_ms: 30000 }],
      ["close_agent", { target: "a1" }],
      ["tool_search", { query: "docs", limit: 8 }],
    ] as const) {
      expect(await call(name, input), name).toMatchObject({ kind: "allow" });
    }
  });

  it("MCP tools are MCP calls; Gatehouse's own Skill tool is allowed", async () => {
    expect(await call("mcp__marker_srv__mark", { note: "hi" })).toEqual({
      kind: "mcp",
      name: "mcp__marker_srv__mark",
      server: "marker_srv",
      tool: "mark",
      input: '{"note":"hi"}',
    });
    expect(await call("mcp__gatehouse_skills__Skill", { skill: "x" })).toMatchObject({ kind: "allow" });
  });

  it("an unknown tool, an unknown field, a wrong type and an unknown enum value each need a person", async () => {
    expect(await call("write_file", { path: "/etc/x" })).toMatchObject({
      kind: "person",
      reason: expect.stringContaining('does not know Codex\'s tool "write_file"'),
    });
    expect(await call("view_image", { path: "x.png", detail: "high" })).toMatchObject({ kind: "person" });
    expect(await call("update_goal", { status: "abandoned" })).toMatchObject({ kind: "person" });
    expect(await call("wait_agent", { targets: "a1" })).toMatchObject({ kind: "person" });
    expect(
      await call("spawn_agent", { items: [{ type: "local_image", path: "/etc/shadow" }] }),
    ).toMatchObject({
      kind: "person",
    });
    expect(await call("read_mcp_resource", { server: "s", uri: "file:///etc/passwd" })).toMatchObject({
      kind: "person",
    });
  });

  it("every row of the table has plain words for what the tool does", () => {
    for (const [name, spec] of Object.entries(CODEX_TOOLS)) expect(spec.what.length, name).toBeGreaterThan(5);
    expect(realpathSync(bash)).toBeTruthy();
  });
});
