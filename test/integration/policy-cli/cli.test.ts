// The real `gatehouse init`, `policy explain` and `allowlist` commands against a temp home.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalsFile } from "../../../src/core/approvals/index.js";
import type { Explanation } from "../../../src/core/policy/index.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let env: Record<string, string>;
let bin: string;

async function tool(name: string): Promise<string> {
  const file = path.join(bin, name);
  await fs.writeFile(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  return fs.realpath(file);
}

beforeEach(async () => {
  t = await makeTempHome("gatehouse-cli-policy-");
  bin = path.join(t.home, "bin");
  await fs.mkdir(bin, { recursive: true });
  env = { ...t.env, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` };
});
afterEach(async () => t.cleanup());

const readApprovals = async () => JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as ApprovalsFile;

describe("gatehouse init", () => {
  it("creates a 0600 approvals file with a fresh token and says nothing runs until a mode is chosen", async () => {
    const r = await runCli(["init", "--json"], { env });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      path: t.paths.approvals,
      created: true,
      preset: "locked",
      applied: null,
      settings: { security: "deny", ask: "on-miss", askFallback: "deny" },
    });
    expect(r.stdout).not.toContain((await readApprovals()).socket.token);
    expect((await fs.stat(t.paths.approvals)).mode & 0o777).toBe(0o600);
    const text = await runCli(["init"], { env });
    expect(text.stdout).toContain("Preset: Locked");
    expect(text.stdout).toContain("--preset ask");
  });

  it("applies a preset and keeps existing agents, entries and the token", async () => {
    await runCli(["allowlist", "add", "/usr/bin/git", "--agent", "claude-code"], { env });
    const before = await readApprovals();
    const r = await runCli(["init", "--preset", "ask", "--json"], { env });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      created: false,
      preset: "ask",
      applied: "ask",
      settings: { security: "allowlist", ask: "on-miss" },
    });
    const after = await readApprovals();
    expect(after.socket.token).toBe(before.socket.token);
    expect(after.agents["claude-code"]).toEqual(before.agents["claude-code"]);
    expect(after.defaults).toEqual({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
  });

  it("refuses an unknown preset with exit 2 and writes nothing", async () => {
    const r = await runCli(["init", "--preset", "yolo"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("locked, ask or trust");
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });
});

describe("gatehouse policy explain", () => {
  it("explains an argv as JSON: outcome, reason, settings, flags and segments", async () => {
    const git = await tool("git");
    await runCli(["init", "--preset", "ask"], { env });
    const added = (await runCli(["allowlist", "add", git, "--json"], { env })).json<{
      entry: { id: string };
    }>();
    const r = await runCli(["policy", "explain", "--json", "--", "git", "status"], { env });
    expect(r.code).toBe(0);
    const e = r.json<Explanation>();
    expect(e).toMatchObject({
      outcome: "run",
      reason: "allowlist",
      security: "allowlist",
      ask: "on-miss",
      askFallback: "deny",
      flags: [],
    });
    expect(e.segments).toEqual([
      expect.objectContaining({
        argv: ["git", "status"],
        executable: "git",
        resolvedPath: git,
        matchedEntryId: added.entry.id,
      }),
    ]);
  });

  it("with --shell analyses the words as one shell string", async () => {
    await tool("git");
    await tool("rm");
    await runCli(["init", "--preset", "ask"], { env });
    await runCli(["allowlist", "add", path.join(bin, "git")], { env });
    const r = await runCli(
      ["policy", "explain", "--shell", "--json", "--", "git status &&", "rm -rf build > log"],
      { env },
    );
    const e = r.json<Explanation>();
    expect(e.outcome).toBe("prompt");
    expect(e.flags).toEqual(["redirect"]);
    expect(e.segments.map((s) => s.argv)).toEqual([
      ["git", "status"],
      ["rm", "-rf", "build"],
    ]);
    const argv = (
      await runCli(["policy", "explain", "--json", "--", "git status && rm x"], { env })
    ).json<Explanation>();
    expect(argv.segments).toHaveLength(1);
  });

  it("uses --cwd and --agent", async () => {
    const project = path.join(t.home, "project");
    await fs.mkdir(project);
    const local = path.join(project, "build.sh");
    await fs.writeFile(local, "#!/bin/sh\n", { mode: 0o755 });
    await runCli(["init", "--preset", "ask"], { env });
    await runCli(["allowlist", "add", "--agent", "codex", await fs.realpath(local)], { env });
    const r = await runCli(
      ["policy", "explain", "--json", "--agent", "codex", "--cwd", project, "--", "./build.sh"],
      { env },
    );
    expect(r.json<Explanation>()).toMatchObject({
      outcome: "run",
      agentId: "codex",
      cwd: await fs.realpath(project),
    });
    const other = await runCli(["policy", "explain", "--json", "--cwd", project, "--", "./build.sh"], {
      env,
    });
    expect(other.json<Explanation>()).toMatchObject({ outcome: "prompt", agentId: "local" });
  });

  it("prints a readable explanation without --json, also for a denial (exit 0)", async () => {
    await tool("git");
    const r = await runCli(["policy", "explain", "--", "git", "status"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Outcome: deny (security=deny)");
    expect(r.stdout).toContain(`runs ${path.join(bin, "git")}`);
  });

  it("does not create a missing approvals file", async () => {
    const r = await runCli(["policy", "explain", "--json", "--", "ls"], { env });
    expect(r.json<Explanation>()).toMatchObject({ outcome: "deny", approvalsFile: { status: "missing" } });
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });

  it("an invalid approvals file: deny with the file's path and error, exit 3, bytes unchanged", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
    const bytes = '{"version":1,"socket":{"path":"x","token":"short"},"agents":{}}\n';
    await fs.writeFile(t.paths.approvals, bytes, { mode: 0o600 });
    const r = await runCli(["policy", "explain", "--json", "--", "ls"], { env });
    expect(r.code).toBe(3);
    const e = r.json<Explanation>();
    expect(e).toMatchObject({
      outcome: "deny",
      reason: "approvals-file-invalid",
      approvalsFile: { path: t.paths.approvals, status: "invalid" },
    });
    expect(e.approvalsFile.error).toContain(t.paths.approvals);
    expect(e.approvalsFile.error).toContain("socket.token");
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(bytes);
    const text = await runCli(["policy", "explain", "--", "ls"], { env });
    expect(text.code).toBe(3);
    expect(text.stderr).toContain(t.paths.approvals);
  });

  it("bad usage exits 2", async () => {
    expect((await runCli(["policy", "explain"], { env })).code).toBe(2);
    expect((await runCli(["policy", "frobnicate", "--", "ls"], { env })).code).toBe(2);
    expect((await runCli(["policy", "explain", "ls", "-la"], { env })).code).toBe(2);
    expect((await runCli(["policy", "explain", "--cwd", "/nonexistent/x", "--", "ls"], { env })).code).toBe(
      2,
    );
  });
});

describe("gatehouse allowlist", () => {
  it("adds, lists and removes entries of agents['*'] by default", async () => {
    const add = await runCli(
      [
        "allowlist",
        "add",
        "/usr/bin/git",
        "--arg-pattern",
        "^status",
        "--cwd",
        "~/Projects/**",
        "--uses",
        "3",
        "--json",
      ],
      { env },
    );
    expect(add.code).toBe(0);
    const { entry } = add.json<{ entry: { id: string } }>();
    expect(entry).toMatchObject({
      pattern: "/usr/bin/git",
      argPattern: "^status",
      cwd: "~/Projects/**",
      usesLeft: 3,
      source: "cli",
    });
    const list = (await runCli(["allowlist", "list", "--json"], { env })).json<{
      agentId: string;
      entries: { id: string; status: string }[];
    }>();
    expect(list.agentId).toBe("*");
    expect(list.entries).toEqual([expect.objectContaining({ id: entry.id, status: "live" })]);
    const removed = await runCli(["allowlist", "remove", entry.id, "--json"], { env });
    expect(removed.json()).toEqual({ agentId: "*", id: entry.id, removed: true });
    expect((await readApprovals()).agents["*"]?.allowlist).toEqual([]);
    expect((await runCli(["allowlist", "remove", entry.id], { env })).code).toBe(1);
  });

  it("sets expiresAt from --expires-in or --expires-at, and refuses both", async () => {
    const before = Date.now();
    const r = (await runCli(["allowlist", "add", "rg", "--expires-in", "60", "--json"], { env })).json<{
      entry: { expiresAt: number };
    }>();
    expect(r.entry.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(r.entry.expiresAt).toBeLessThan(Date.now() + 60_000 + 1);
    const at = (
      await runCli(["allowlist", "add", "rg", "--expires-at", "1700000000000", "--json"], { env })
    ).json<{ entry: { expiresAt: number } }>();
    expect(at.entry.expiresAt).toBe(1_700_000_000_000);
    expect(
      (await runCli(["allowlist", "add", "rg", "--expires-in", "5", "--expires-at", "5"], { env })).code,
    ).toBe(2);
    const list = (await runCli(["allowlist", "list", "--json"], { env })).json<{
      entries: { status: string }[];
    }>();
    expect(list.entries.map((e) => e.status)).toEqual(["live", "expired"]);
  });

  it("adds an MCP entry with --mcp SERVER/TOOL, which explains no program and lists as mcp:SERVER/TOOL", async () => {
    const add = await runCli(
      ["allowlist", "add", "--mcp", "docs/search", "--agent", "codex", "--uses", "2", "--json"],
      { env },
    );
    expect(add.code).toBe(0);
    expect(add.json<{ entry: unknown }>().entry).toMatchObject({
      pattern: "mcp:docs/search",
      usesLeft: 2,
      source: "cli",
    });
    const text = await runCli(["allowlist", "list", "--agent", "codex"], { env });
    expect(text.stdout).toContain("mcp:docs/search");
    expect(text.stdout).not.toContain("→");
  });

  it.each([
    [["--mcp", "docs"], "names no tool"],
    [["--mcp", "docs/sea rch"], 'the MCP tool name "sea rch"'],
    [["--mcp", "docs/search", "--cwd", "/x"], "takes no --arg-pattern or --cwd"],
    [["--mcp", "docs/search", "/usr/bin/git"], "not both"],
  ])("an invalid MCP entry %j exits 2 with the reason", async (args, reason) => {
    const r = await runCli(["allowlist", "add", ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(reason);
  });

  it("shows what a bare name resolves to today", async () => {
    const rg = await tool("rg");
    await runCli(["allowlist", "add", "rg", "--agent", "claude-code"], { env });
    const list = (await runCli(["allowlist", "list", "--agent", "claude-code", "--json"], { env })).json<{
      entries: { resolvesTo: string }[];
    }>();
    expect(list.entries[0]?.resolvesTo).toBe(rg);
    const text = await runCli(["allowlist", "list", "--agent", "claude-code"], { env });
    expect(text.stdout).toContain(`rg  → ${rg}`);
  });

  it.each([
    [["relative/rg"], "absolute path"],
    [["/usr/bin/git", "--arg-pattern", "(unclosed"], "not a valid regular expression"],
    [["/usr/bin/git", "--cwd", "Projects"], "cwd must be an absolute path"],
    [["/usr/bin/git", "--uses", "-1"], "--uses"],
    [["/usr/bin/git", "--uses", "0"], "at least 1"],
  ])("an invalid entry %j exits 2 with the reason and leaves the file untouched", async (args, reason) => {
    await runCli(["init"], { env });
    const before = await fs.readFile(t.paths.approvals, "utf8");
    const r = await runCli(["allowlist", "add", ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(reason);
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(before);
  });

  it("an invalid entry does not create a missing file", async () => {
    expect((await runCli(["allowlist", "add", "bad/pattern"], { env })).code).toBe(2);
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });

  it("an invalid approvals file exits 3 and is not touched", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.approvals, "not json");
    for (const args of [["list"], ["add", "/usr/bin/git"], ["remove", "x"]]) {
      const r = await runCli(["allowlist", ...args], { env });
      expect(r.code, args.join(" ")).toBe(3);
      expect(r.stderr).toContain(t.paths.approvals);
    }
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe("not json");
  });
});
