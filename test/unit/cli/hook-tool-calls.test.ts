// What each runtime's PreToolUse input becomes (cli/hook/claude.ts, codex.ts): a command for the
// command gate, paths for the file gate, a pass, or a refusal. Codex call arguments are read back from
// a real transcript file in the format codex-cli 0.169 writes.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeToolCall } from "../../../src/cli/hook/claude.js";
import { codexToolCall } from "../../../src/cli/hook/codex.js";
import { findCallArguments } from "../../../src/cli/hook/codex-transcript.js";
import { codexOpenedPath } from "../../../src/core/workdir/runtime-path.js";

const CWD = "/work/app";

describe("Claude Code's tool calls", () => {
  const call = (tool_name: string, tool_input: Record<string, unknown>) =>
    claudeToolCall({ tool_name, tool_input }, CWD);

  it("Bash is a command in the session's folder; without a command it is refused", () => {
    expect(call("Bash", { command: "npm test", description: "d" })).toEqual({
      kind: "command",
      command: "npm test",
      cwd: CWD,
    });
    expect(call("Bash", { command: "  " })).toMatchObject({ kind: "refuse" });
    expect(call("Bash", {})).toMatchObject({ kind: "refuse" });
  });

  it("the edit tools write the file they name; the read tools read it", () => {
    expect(call("Write", { file_path: "/x/a", content: "" })).toEqual({
      kind: "file",
      tool: "Write",
      access: "write",
      paths: ["/x/a"],
      runtime: "claude",
      base: CWD,
    });
    expect(call("Edit", { file_path: "/x/a" })).toMatchObject({ access: "write", paths: ["/x/a"] });
    expect(call("MultiEdit", { file_path: "/x/a", edits: [] })).toMatchObject({ access: "write" });
    expect(call("NotebookEdit", { notebook_path: "/x/n.ipynb" })).toMatchObject({
      access: "write",
      paths: ["/x/n.ipynb"],
    });
    expect(call("Read", { file_path: "/x/a" })).toMatchObject({ access: "read", paths: ["/x/a"] });
    expect(call("Write", { content: "x" })).toMatchObject({ kind: "refuse" });
  });

  it("Grep and Glob search their folder (the session's by default) and where an absolute pattern leads", () => {
    expect(call("Grep", { pattern: "TODO" })).toMatchObject({ access: "read", paths: [CWD] });
    expect(call("Glob", { pattern: "**/*.ts", path: "/x" })).toMatchObject({ paths: ["/x"] });
    expect(call("Glob", { pattern: "/home/u/.ssh/*" })).toMatchObject({ paths: [CWD, "/home/u/.ssh"] });
    expect(call("Glob", { pattern: "../../other/**/*.env" })).toMatchObject({
      paths: [CWD, path.join(CWD, "../../other")],
    });
  });

  it("a tool that runs programs outside Bash is refused", () => {
    expect(call("EnterWorktree", { name: "wt" })).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("runs programs outside the gate"),
    });
  });

  it("every other tool is left to Claude Code's own permissions", () => {
    expect(call("TodoWrite", { todos: [] })).toEqual({ kind: "pass" });
    expect(call("mcp__docs__search", { q: "x" })).toEqual({ kind: "pass" });
  });
});

describe("Codex's tool calls", () => {
  let dir: string;
  let transcript: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "gh-codex-transcript-"));
    transcript = path.join(dir, "rollout.jsonl");
    const line = (callId: string, args: Record<string, unknown>) =>
      JSON.stringify({
        timestamp: "2026-11-24T15:25:02.773Z",
        type: "response_item",
        payload: {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify(args),
          call_id: callId,
        },
      });
    await fs.writeFile(
      transcript,
      [
        JSON.stringify({ type: "session_meta", payload: { id: "s" } }),
        line("call_plain", { cmd: "ls" }),
        line("call_zsh", { cmd: "ls", shell: "/usr/bin/zsh" }),
        line("call_bash", { cmd: "ls", shell: "/opt/bin/bash" }),
        line("call_sh", { cmd: "ls", shell: "sh" }),
        line("call_workdir", { cmd: "apply_patch", workdir: "pkg" }),
        line("call_updir", { cmd: "apply_patch", workdir: "../elsewhere" }),
        "not json",
      ].join("\n"),
    );
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  const call = (tool_name: string, tool_input: Record<string, unknown>, tool_use_id = "call_plain") =>
    codexToolCall({ tool_name, tool_input, transcript_path: transcript, tool_use_id }, CWD);

  it("reads a call's arguments back from the transcript", async () => {
    expect(await findCallArguments(transcript, "call_zsh")).toEqual({ cmd: "ls", shell: "/usr/bin/zsh" });
    expect(await findCallArguments(transcript, "call_missing")).toBeNull();
  });

  it("a command run by bash (the default, or asked for by name) goes to the command gate", async () => {
    expect(await call("Bash", { command: "ls" })).toEqual({ kind: "command", command: "ls", cwd: CWD });
    expect(await call("Bash", { command: "ls" }, "call_bash")).toMatchObject({ kind: "command" });
  });

  it("a command for another shell, or one the transcript does not show, is refused with the reason", async () => {
    expect(await call("Bash", { command: "ls" }, "call_zsh")).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining('run it without the "shell" argument'),
    });
    expect(await call("Bash", { command: "ls" }, "call_sh")).toMatchObject({ kind: "refuse" });
    await expect(
      codexToolCall({ tool_name: "Bash", tool_input: { command: "ls" } }, CWD),
    ).resolves.toMatchObject({ kind: "refuse" });
    await expect(
      codexToolCall(
        {
          tool_name: "Bash",
          tool_input: { command: "ls" },
          transcript_path: path.join(dir, "none"),
          tool_use_id: "x",
        },
        CWD,
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
    expect(await call("apply_patch", { command: "*** Begin Patch\n*** End Patch\n" })).toMatchObject({
      kind: "refuse",
    });
    expect(await call("view_image", { path: "/tmp/x.png" })).toMatchObject({
      access: "read",
      paths: ["/tmp/x.png"],
    });
  });

  it("a patch Gatehouse does not read as Codex does, or in a form it does not know, is refused with the reason", async () => {
    expect(await call("apply_patch", { command: "*** Begin Patch\n*** End Patch\n" })).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("the patch names no file"),
    });
    const separator = "*** Begin Patch\n*** Add File: ../x\u2028y\n+x\n*** End Patch";
    expect(await call("apply_patch", { command: separator })).toMatchObject({
      kind: "refuse",
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
    ).toMatchObject({ kind: "refuse", reason: expect.stringContaining("fields: command, input") });
    expect(await call("apply_patch", { input: "*** Begin Patch\n*** End Patch" })).toMatchObject({
      kind: "refuse",
    });
  });

  it("an exec_command Codex applies as a patch is the patch's write, from its workdir and `cd`", async () => {
    const heredoc = (cd: string) =>
      `${cd}apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch\nEOF\n`;
    expect(await call("Bash", { command: heredoc("") })).toEqual({
      kind: "file",
      tool: "apply_patch",
      access: "write",
      paths: ["n.txt"],
      runtime: "codex",
      base: CWD,
    });
    expect(await call("Bash", { command: heredoc("cd sub && ") })).toMatchObject({
      kind: "file",
      paths: ["n.txt"],
      base: path.join(CWD, "sub"),
    });
    expect(await call("Bash", { command: heredoc("cd sub && ") }, "call_workdir")).toMatchObject({
      kind: "file",
      paths: ["n.txt"],
      base: path.join(CWD, "pkg", "sub"),
    });
    expect(await call("Bash", { command: heredoc("cd sub && ") }, "call_updir")).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("not a plain folder name"),
    });
    expect(await call("Bash", { command: `echo x && ${heredoc("")}` })).toMatchObject({
      kind: "refuse",
      reason: expect.stringContaining("in a form Gatehouse does not read"),
    });
  });

  it("tools that do nothing here pass, MCP tools pass, and an unknown tool is refused", async () => {
    for (const name of [
      "update_plan",
      "create_goal",
      "spawn_agent",
      "multi_agent_v1wait_agent",
      "mcp__docs__q",
    ])
      expect(await call(name, {})).toEqual({ kind: "pass" });
    expect(await call("write_file", { path: "/etc/x" })).toMatchObject({
      kind: "refuse",
      reason: 'Gatehouse does not know Codex\'s tool "write_file", so it blocks it.',
    });
  });
});
