// What the channels do, through the router over the real services in a temp home.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUTH_TOKEN_ACCOUNT } from "../../../src/secrets/secret-store.js";
import type {
  AllowlistState,
  AuditPreview,
  CapabilitiesState,
  EntryCheck,
  Explanation,
} from "../../../src/ipc/contract.js";
import { realProgram } from "../../support/programs.js";
import { startRouterFixture, type RouterFixture } from "./router-fixture.js";

let f: RouterFixture;
beforeEach(async () => {
  f = await startRouterFixture();
});
afterEach(async () => {
  await f.close();
});

async function value<T>(channel: string, payload: unknown = {}): Promise<T> {
  const result = await f.call(channel, payload);
  if (!result.ok) throw new Error(`${channel}: ${result.error?.message}`);
  return result.value as T;
}

async function approvalsText(): Promise<string> {
  return fs.readFile(f.t.paths.approvals, "utf8");
}

describe("allowlist channels", () => {
  it("lists all agents (*) first, then the well-known agents, with their effective settings and where they come from", async () => {
    const state = await value<AllowlistState>("allowlist.get");
    expect(state.agents.map((a) => a.id)).toEqual(["*", "backend", "claude-code", "codex", "local"]);
    expect(state.preset).toBe("ask");
    expect(state.agents[1]?.effective).toMatchObject({
      security: "allowlist",
      ask: "on-miss",
      askFallback: "deny",
      sources: { security: "defaults" },
    });
  });

  it("adds an entry to the file at once, and refuses a bad glob or regex with the field and the reason, writing nothing", async () => {
    const before = await approvalsText();
    expect(
      await value("allowlist.addEntry", { agentId: "*", entry: { pattern: "usr/bin/git*" } }),
    ).toMatchObject({
      ok: false,
      field: "pattern",
      reason: "pattern must be an absolute path or start with ~/",
    });
    const badRegex = await value<{ ok: false; field: string; reason: string }>("allowlist.addEntry", {
      agentId: "*",
      entry: { pattern: "/usr/bin/git", argPattern: "^(status" },
    });
    expect(badRegex).toMatchObject({ ok: false, field: "argPattern" });
    expect(badRegex.reason).toContain("not a valid regular expression");
    expect(await approvalsText()).toBe(before);

    const added = await value<{ ok: true; entry: { id: string } }>("allowlist.addEntry", {
      agentId: "local",
      entry: { pattern: "/usr/bin/git", argPattern: "^status$", cwd: "" },
    });
    expect(added.ok).toBe(true);
    const file = JSON.parse(await approvalsText());
    expect(file.agents.local.allowlist).toEqual([
      expect.objectContaining({
        id: added.entry.id,
        pattern: "/usr/bin/git",
        argPattern: "^status$",
        source: "user",
      }),
    ]);
    expect(file.agents.local.allowlist[0]).not.toHaveProperty("cwd");
  });

  it("edits, duplicates and deletes entries", async () => {
    const added = await value<{ entry: { id: string } }>("allowlist.addEntry", {
      agentId: "*",
      entry: { pattern: "/usr/bin/git", argPattern: "^log" },
    });
    const id = added.entry.id;
    const edited = await value<{ ok: boolean }>("allowlist.updateEntry", {
      agentId: "*",
      id,
      entry: { pattern: "/usr/bin/git", usesLeft: 3 },
    });
    expect(edited.ok).toBe(true);
    let list = JSON.parse(await approvalsText()).agents["*"].allowlist;
    expect(list).toEqual([expect.objectContaining({ id, pattern: "/usr/bin/git", usesLeft: 3 })]);
    expect(list[0]).not.toHaveProperty("argPattern");

    const refused = await value<{ ok: boolean; field: string }>("allowlist.updateEntry", {
      agentId: "*",
      id,
      entry: { pattern: "relative/path" },
    });
    expect(refused).toMatchObject({ ok: false, field: "pattern" });

    const copy = await value<{ ok: true; entry: { id: string } }>("allowlist.duplicateEntry", {
      agentId: "*",
      id,
      toAgentId: "codex",
    });
    expect(copy.ok).toBe(true);
    expect(JSON.parse(await approvalsText()).agents.codex.allowlist[0]).toMatchObject({
      pattern: "/usr/bin/git",
      usesLeft: 3,
    });

    expect(await value("allowlist.deleteEntry", { agentId: "*", id })).toEqual({ removed: true });
    expect(await value("allowlist.deleteEntry", { agentId: "*", id })).toEqual({ removed: false });
    list = JSON.parse(await approvalsText()).agents["*"].allowlist;
    expect(list).toEqual([]);
  });

  it("shows expired and used-up entries as such, and what a bare name resolves to today", async () => {
    await f.services.approvals.update((file) => {
      file.agents["*"] = {
        allowlist: [
          { id: "old", pattern: "/usr/bin/git", expiresAt: 1 },
          { id: "spent", pattern: "/usr/bin/git", usesLeft: 0 },
          { id: "bare", pattern: "ls" },
          { id: "ghost", pattern: "no-such-program-here" },
        ],
      };
    });
    const state = await value<AllowlistState>("allowlist.get");
    const entries = state.agents[0]!.entries;
    expect(entries.map((e) => [e.entry.id, e.liveness])).toEqual([
      ["old", "expired"],
      ["spent", "used-up"],
      ["bare", "live"],
      ["ghost", "live"],
    ]);
    expect(entries[2]?.resolvesTo).toBe(realProgram("ls"));
    expect(entries[3]?.problem).toContain("resolves to nothing today");
  });

  it("sets and clears (inherit) an agent's settings", async () => {
    expect(await value("allowlist.setSettings", { agentId: "codex", ask: "always" })).toEqual({ ok: true });
    let state = await value<AllowlistState>("allowlist.get");
    expect(state.agents.find((a) => a.id === "codex")?.own).toEqual({ ask: "always" });
    expect(state.agents.find((a) => a.id === "codex")?.effective.sources.ask).toBe("agents.codex");
    expect(await value("allowlist.setSettings", { agentId: "codex", ask: null })).toEqual({ ok: true });
    state = await value<AllowlistState>("allowlist.get");
    expect(state.agents.find((a) => a.id === "codex")?.own).toEqual({});
  });

  it("checks an entry as it is typed, with every problem by field and what it resolves to", async () => {
    expect(await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: "ls" } })).toEqual({
      ok: true,
      problems: [],
      notes: [`ls resolves to ${realProgram("ls")} today.`],
      warning: null,
    });
    expect(await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: "l*" } })).toMatchObject({
      ok: false,
      problems: [{ field: "pattern" }],
    });
    expect(await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: "" } })).toMatchObject({
      ok: false,
      problems: [{ field: "pattern", reason: "pattern is required" }],
    });
    // Every field's problem at once, not only the first one's.
    const all = await value<EntryCheck>("allowlist.checkEntry", {
      entry: { pattern: "bin/*", argPattern: "(", cwd: "Projects" },
    });
    expect(all.ok).toBe(false);
    expect(all.problems.map((p) => p.field)).toEqual(["pattern", "argPattern", "cwd"]);
    expect(all.problems[1]?.reason).toContain("not a valid regular expression");
  });

  it("warns, without refusing the entry, when the program it names is not there today (resolved as the policy resolves it)", async () => {
    const missing = await value<EntryCheck>("allowlist.checkEntry", {
      entry: { pattern: "/nowhere/bin/tool" },
    });
    expect(missing).toMatchObject({ ok: true, problems: [] });
    expect(missing.warning).toContain("There is no program at /nowhere/bin/tool today");
    expect(missing.warning).toContain("You can still save the entry");
    // A file that is there but is not a program the policy would run (not executable) is missing too.
    const plain = path.join(f.t.home, "notes.txt");
    await fs.writeFile(plain, "not a program\n", { mode: 0o644 });
    expect(
      (await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: plain } })).warning,
    ).toContain(`There is no program at ${plain} today`);
    const tilde = await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: "~/notes.txt" } });
    expect(tilde.warning).toContain(`There is no program at ${plain} today`);
    // A bare name found nowhere on PATH.
    const bare = await value<EntryCheck>("allowlist.checkEntry", {
      entry: { pattern: "gatehouse-no-such-program" },
    });
    expect(bare).toMatchObject({ ok: true, notes: [] });
    expect(bare.warning).toContain("No program named gatehouse-no-such-program is on PATH today");
    // A real program, by path and by name, and a glob (no one program to look for): no warning.
    for (const pattern of [realProgram("ls"), "ls", "/usr/bin/*"])
      expect((await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern } })).warning).toBeNull();
  });

  it("checks an MCP entry, saying the name each runtime gives the tool, and previews the calls it would have covered", async () => {
    expect(
      await value<EntryCheck>("allowlist.checkEntry", { entry: { pattern: "mcp:marker-srv/mark" } }),
    ).toEqual({
      ok: true,
      problems: [],
      notes: [
        'Covers the tool "mark" of the MCP server "marker-srv": mcp__marker-srv__mark in Claude Code, mcp__marker_srv__mark in Codex.',
      ],
      warning: null,
    });
    expect(
      await value<EntryCheck>("allowlist.checkEntry", {
        entry: { pattern: "mcp:marker-srv/mark", cwd: "/x" },
      }),
    ).toMatchObject({ ok: false, problems: [{ field: "cwd" }] });
    const call = (command: string, agentId: string) => ({
      ts: Date.now(),
      runId: `run_${command.length}_${agentId}`,
      event: "decision" as const,
      agentId,
      sessionKey: "s",
      source: `${agentId}-hook`,
      command,
      cwd: f.t.home,
      decision: "deny" as const,
      decidedBy: "policy" as const,
      reason: "allowlist-miss",
      exitCode: null,
      timedOut: false,
      durationMs: 1,
    });
    await f.services.audit.append(call(`mcp__marker_srv__mark '{"note":"x"}'`, "codex"));
    await f.services.audit.append(call(`mcp__marker-srv__mark '{"note":"y"}'`, "claude-code"));
    await f.services.audit.append(call("mcp__marker_srv__other", "codex"));
    const result = await value<{ ok: true; preview: AuditPreview }>("allowlist.preview", {
      agentId: "*",
      entry: { pattern: "mcp:marker-srv/mark" },
    });
    expect(result.preview.covered.map((c) => c.agentId).sort()).toEqual(["claude-code", "codex"]);
  });

  it("explains a typed command live: per segment, the matching entry, and the outcome", async () => {
    const ls = realProgram("ls");
    await f.services.approvals.addEntry("*", { pattern: ls });
    const result = await value<{ ok: true; explanation: Explanation }>("allowlist.explain", {
      agentId: "local",
      command: "ls -la && rm -rf x",
    });
    expect(result.explanation.outcome).toBe("prompt");
    expect(result.explanation.segments.map((s) => [s.executable, s.matchedEntryId !== null])).toEqual([
      ["ls", true],
      ["rm", false],
    ]);
    expect(await value("allowlist.explain", { agentId: "local", command: "  " })).toMatchObject({
      ok: false,
    });
    expect(
      await value("allowlist.explain", { agentId: "local", command: "ls", cwd: "relative" }),
    ).toMatchObject({
      ok: false,
    });
  });

  it("previews which past commands of the agent an entry would have covered", async () => {
    const now = Date.now();
    const record = (command: string, agentId = "local") => ({
      ts: now,
      runId: `run_${command.length}_${agentId}`,
      event: "decision" as const,
      agentId,
      sessionKey: "s",
      source: "cli",
      command,
      cwd: f.t.home,
      decision: "deny" as const,
      decidedBy: "user" as const,
      reason: "denied by user",
      exitCode: null,
      timedOut: false,
      durationMs: 1,
    });
    await f.services.audit.append(record("ls -la"));
    await f.services.audit.append(record("ls | wc -l"));
    await f.services.audit.append(record("pwd"));
    await f.services.audit.append(record("ls /", "codex"));
    const result = await value<{ ok: true; preview: AuditPreview }>("allowlist.preview", {
      agentId: "local",
      entry: { pattern: realProgram("ls") },
    });
    expect(result.preview.scanned).toBe(3);
    expect(result.preview.covered.map((c) => [c.command, c.coverage])).toEqual([
      ["ls | wc -l", "some"],
      ["ls -la", "all"],
    ]);
    expect(await value("allowlist.preview", { agentId: "local", entry: { pattern: "x/y" } })).toMatchObject({
      ok: false,
    });
    // a request that did not prove its agent: only an every-agent entry would have covered it
    await f.services.audit.append({ ...record("ls -l /tmp"), runId: "run_unproven", identity: "unproven" });
    const forLocal = await value<{ ok: true; preview: AuditPreview }>("allowlist.preview", {
      agentId: "local",
      entry: { pattern: realProgram("ls") },
    });
    expect(forLocal.preview.covered.map((c) => c.command)).not.toContain("ls -l /tmp");
    const forEveryone = await value<{ ok: true; preview: AuditPreview }>("allowlist.preview", {
      agentId: "*",
      entry: { pattern: realProgram("ls") },
    });
    expect(forEveryone.preview.covered.map((c) => c.command)).toContain("ls -l /tmp");
  });
});

describe("prompts channels", () => {
  async function pending(argv: string[]) {
    const explanation = await f.ui.explain({ command: argv.join(" ") }, { agentId: "local", cwd: f.t.home });
    const answer = f.services.broker.request({
      id: "run_1",
      sessionKey: "s",
      agentId: "local",
      source: "cli",
      cwd: f.t.home,
      command: { argv },
      explanation,
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    return { answer, explanation };
  }

  it("refuses an edited allow-always entry that is invalid or a blank cheque, and leaves the prompt pending", async () => {
    const { answer } = await pending(["ls", "-la"]);
    expect(
      await value("prompts.decide", {
        id: "run_1",
        decision: "allow-always",
        entries: [{ segment: 0, pattern: "usr/bin/ls" }],
      }),
    ).toMatchObject({ ok: false, segment: 0 });
    const shell = await value<{ ok: false; reason: string }>("prompts.decide", {
      id: "run_1",
      decision: "allow-always",
      entries: [{ segment: 0, pattern: "/bin/bash" }],
    });
    expect(shell.reason).toContain("never saves bash without an argPattern");
    expect(f.services.broker.size).toBe(1);
    expect(await value("prompts.decide", { id: "run_1", decision: "allow-once" })).toEqual({ ok: true });
    expect(await answer).toEqual({ decision: "allow-once" });
  });

  it("passes the edited entries with allow always", async () => {
    const { answer } = await pending(["ls"]);
    expect(
      await value("prompts.decide", {
        id: "run_1",
        decision: "allow-always",
        entries: [{ segment: 0, pattern: "/usr/bin/l*", cwd: "~/Projects/**" }],
      }),
    ).toEqual({ ok: true });
    expect(await answer).toEqual({
      decision: "allow-always",
      entries: [{ segment: 0, pattern: "/usr/bin/l*", cwd: "~/Projects/**" }],
    });
  });

  it("says so when the prompt is no longer waiting", async () => {
    expect(await value("prompts.decide", { id: "run_gone", decision: "deny" })).toEqual({
      ok: false,
      reason: "This request is no longer waiting: it was decided elsewhere or timed out.",
    });
  });
});

describe("activity, settings and app channels", () => {
  it("turns the backend's exec lifecycle events on and off in the settings (off by default)", async () => {
    expect((await value<{ execEvents: boolean }>("settings.get", {})).execEvents).toBe(false);
    expect(await value("settings.setExecEvents", { enabled: true })).toEqual({ ok: true });
    expect((await value<{ execEvents: boolean }>("settings.get", {})).execEvents).toBe(true);
    const file = JSON.parse(await fs.readFile(f.services.paths.settings, "utf8")) as { device: unknown };
    expect(file.device).toEqual({ execEvents: true });
    expect(await value("settings.setExecEvents", { enabled: false })).toEqual({ ok: true });
    expect((await value<{ execEvents: boolean }>("settings.get", {})).execEvents).toBe(false);
  });

  it("filters the audit log by text, decision and who decided", async () => {
    const base = {
      runId: "r",
      sessionKey: "s",
      source: "cli",
      cwd: "/tmp",
      reason: "x",
      exitCode: null,
      timedOut: false,
      durationMs: 1,
    };
    await f.services.audit.append({
      ...base,
      ts: 1,
      runId: "a",
      event: "decision",
      agentId: "local",
      command: "git status",
      decision: "allow-once",
      decidedBy: "rule:abc",
    });
    await f.services.audit.append({
      ...base,
      ts: 2,
      runId: "b",
      event: "decision",
      agentId: "codex",
      command: "rm -rf /",
      decision: "deny",
      decidedBy: "user",
    });
    await f.services.audit.append({
      ...base,
      ts: 3,
      runId: "c",
      event: "decision",
      agentId: "local",
      command: "curl x",
      decision: "timeout",
      decidedBy: "fallback",
    });
    const all = await value<{ records: Array<{ runId: string }> }>("activity.list", {});
    expect(all.records.map((r) => r.runId)).toEqual(["c", "b", "a"]);
    const only = async (query: object) =>
      (await value<{ records: Array<{ runId: string }> }>("activity.list", query)).records.map(
        (r) => r.runId,
      );
    expect(await only({ text: "GIT" })).toEqual(["a"]);
    expect(await only({ decision: "denied" })).toEqual(["b"]);
    expect(await only({ decision: "allowed" })).toEqual(["a"]);
    expect(await only({ decidedBy: "rule" })).toEqual(["a"]);
    expect(await only({ decidedBy: "fallback", agentId: "local" })).toEqual(["c"]);
  });

  it("stores the token in the secret store and never sends it back", async () => {
    const saved = await value<{ ok: boolean }>("settings.setToken", { token: "Bearer wg-secret-token-123" });
    expect(saved.ok).toBe(true);
    expect(await f.secrets.get(AUTH_TOKEN_ACCOUNT)).toBe("wg-secret-token-123");
    const settings = await f.call("settings.get", {});
    expect(JSON.stringify(settings)).not.toContain("wg-secret-token-123");
    expect(settings.value).toMatchObject({ tokenStored: true });
    expect(f.logs.join("\n")).not.toContain("wg-secret-token-123");
    expect(await value("settings.setToken", { token: "   " })).toEqual({
      ok: false,
      reason: "Paste the backend token first.",
    });
    expect(await value("settings.clearToken", {})).toEqual({ removed: true });
    expect(await f.secrets.get(AUTH_TOKEN_ACCOUNT)).toBeNull();
  });

  it("saves a valid backend URL in device-config.json and refuses anything else with the reason", async () => {
    const bad = await value<{ ok: boolean; reason?: string }>("settings.setBackendUrl", {
      url: "ftp://example.com",
    });
    expect(bad.ok).toBe(false);
    expect(bad.reason).toBeTruthy();
    const good = await value<{ ok: boolean; url: string }>("settings.setBackendUrl", {
      url: "https://wegent.example.com/",
    });
    expect(good.ok).toBe(true);
    const config = JSON.parse(await fs.readFile(f.t.paths.deviceConfig, "utf8"));
    expect(config.connection.backend_url).toBe(good.url);
  });

  it("applies a preset and rotates the socket token", async () => {
    const before = JSON.parse(await approvalsText());
    expect(await value("settings.applyPreset", { preset: "locked" })).toEqual({ ok: true });
    expect(await value("settings.rotateSocketToken", {})).toEqual({ ok: true });
    const after = JSON.parse(await approvalsText());
    expect(after.defaults).toEqual({ security: "deny", ask: "off", askFallback: "deny" });
    expect(after.socket.token).not.toBe(before.socket.token);
  });

  it("opens only http(s) links, reveals only existing absolute paths, and opens the logs folder", async () => {
    expect(await value("app.openExternal", { url: "file:///etc/passwd" })).toMatchObject({ ok: false });
    expect(await value("app.openExternal", { url: "javascript:alert(1)" })).toMatchObject({ ok: false });
    expect(await value("app.openExternal", { url: "https://docs.example.com/a" })).toEqual({ ok: true });
    expect(f.host.external).toEqual(["https://docs.example.com/a"]);

    expect(await value("app.revealPath", { path: "relative/thing" })).toMatchObject({ ok: false });
    expect(await value("app.revealPath", { path: path.join(f.t.home, "missing") })).toMatchObject({
      ok: false,
    });
    expect(await value("app.revealPath", { path: f.t.paths.approvals })).toEqual({ ok: true });
    expect(f.host.revealed).toEqual([f.t.paths.approvals]);

    expect(await value("settings.openLogs", {})).toEqual({ ok: true });
    expect(f.host.opened).toEqual([f.t.paths.logsDir]);
    expect((await fs.stat(f.t.paths.logsDir)).isDirectory()).toBe(true);
  });
});

describe("capabilities and workdir channels", () => {
  it("lists a local user skill with its source and status, and the sync state", async () => {
    const folder = path.join(f.t.paths.claudeHome, "skills", "review");
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(
      path.join(folder, "SKILL.md"),
      "---\nname: review\ndescription: Review a pull request carefully\n---\nSteps.\n",
    );
    const state = await value<CapabilitiesState>("capabilities.get", {});
    expect(state.skills.map((s) => [s.name, s.source, s.sourceLabel, s.status])).toEqual([
      ["review", "user", "local user", "ready"],
    ]);
    expect(state.sync).toMatchObject({ revision: 0, lastSyncAt: null, last: null, progress: null });
    expect(state.sync.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("opens only folders the screen showed: a plain folder opens, a package-like one (x.app) is only revealed, anything else is refused", async () => {
    const skill = async (dir: string, name: string) => {
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${name}\n---\n`);
    };
    const plain = path.join(f.t.paths.claudeHome, "skills", "review");
    await skill(plain, "review");
    // A plain name that leads to a macOS package: opening it would launch it.
    const bundle = path.join(f.t.home, "Elsewhere", "Thing.app");
    await skill(bundle, "thing");
    const linked = path.join(f.t.paths.claudeHome, "skills", "thing");
    await fs.symlink(bundle, linked);
    const before = await value<{ ok: boolean; reason?: string }>("capabilities.openFolder", { path: plain });
    expect(before).toEqual({
      ok: false,
      reason: expect.stringMatching(/only opens folders this screen showed/),
    });

    const state = await value<CapabilitiesState>("capabilities.get", {});
    expect(state.skills.map((s) => s.path).sort()).toEqual([plain, linked].sort());
    expect(await value("capabilities.openFolder", { path: plain })).toEqual({ ok: true });
    expect(await value("capabilities.openFolder", { path: linked })).toEqual({ ok: true });
    expect(f.host.opened).toEqual([plain]);
    expect(f.host.revealed).toEqual([linked]);
    // The skill folders' parent is shown (a root in "Skill folders"); the package's parent never was.
    for (const other of ["/etc", f.t.home, path.dirname(bundle), path.join(plain, "SKILL.md")]) {
      const refused = await value<{ ok: boolean }>("capabilities.openFolder", { path: other });
      expect(refused.ok).toBe(false);
    }
    expect(f.host.opened).toEqual([plain]);
  });

  it("says why when there is no sync to cancel or to request again", async () => {
    expect(await value("capabilities.cancelSync", {})).toEqual({ ok: false, reason: "No sync is running." });
    const request = await value<{ ok: boolean; reason: string }>("capabilities.requestSync", {});
    expect(request).toEqual({
      ok: false,
      reason: expect.stringMatching(/not connected to a backend\. Connect in Settings/),
    });
    const state = await value<CapabilitiesState>("capabilities.get", {});
    expect(state.sync).toMatchObject({
      canRequest: false,
      connection: expect.not.stringMatching(/^registered$/),
    });
  });

  it("refuses ~/.ssh as a root with the reason and checks a path outside the roots with the fallback reason", async () => {
    await fs.mkdir(path.join(f.t.home, ".ssh"), { mode: 0o700 });
    const refused = await value<{ ok: boolean; reason: string }>("workdir.addRoot", { path: "~/.ssh" });
    expect(refused.ok).toBe(false);
    expect(refused.reason).toBeTruthy();
    await fs.mkdir(path.join(f.t.home, "elsewhere"));
    const check = await value<{ ok: boolean; code: string | null; message: string }>("workdir.check", {
      path: path.join(f.t.home, "elsewhere"),
    });
    expect(check.ok).toBe(false);
    expect(check.code).toBe("outside-allowed-roots");
  });
});

describe("running tasks", () => {
  /** A small fake of the task runner's UI surface (the real one needs an agent CLI run). */
  function fakeRunner() {
    const listeners = new Set<() => void>();
    const running = [{ taskId: "42", subtaskId: "7", agent: "claude-code", workdir: "/w/42", startedAt: 1 }];
    return {
      stopped: [] as Array<[string, string | null | undefined]>,
      list: () => [...running],
      onChange: (listener: () => void) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      async stop(taskId: string, subtaskId?: string | null) {
        this.stopped.push([taskId, subtaskId]);
        const before = running.length;
        running.splice(0, running.length, ...running.filter((t) => t.taskId !== taskId));
        listeners.forEach((l) => l());
        return running.length < before;
      },
    };
  }

  it("the composition root's task runner is what the status lists (nothing runs yet)", async () => {
    expect(f.ui.tasks).toBe(f.services.tasks);
    expect((await value<{ tasks: unknown[] }>("status.get", {})).tasks).toEqual([]);
  });

  it("lists running tasks in the status, stops one from the UI, and pushes the new list", async () => {
    await f.close();
    const runner = fakeRunner();
    f = await startRouterFixture({ ui: (ui) => ({ ...ui, tasks: runner }) });
    const fx = f;
    const status = await value<{ tasks: unknown[] }>("status.get", {});
    expect(status.tasks).toEqual([
      { taskId: "42", subtaskId: "7", agent: "claude-code", workdir: "/w/42", startedAt: 1 },
    ]);
    const pushed: unknown[] = [];
    fx.router.subscribe("status.tasks", (payload) => pushed.push(payload));
    expect(await value("tasks.stop", { taskId: "42", subtaskId: "7" })).toEqual({ ok: true, stopped: true });
    expect(runner.stopped).toEqual([["42", "7"]]);
    expect(pushed).toEqual([{ tasks: [] }]);
    expect(await value("tasks.stop", { taskId: "42" })).toEqual({ ok: true, stopped: false });
  });

  it("says so when no task runner is wired in", async () => {
    await f.close();
    f = await startRouterFixture({ ui: (ui) => ({ ...ui, tasks: null }) });
    expect(await value("tasks.stop", { taskId: "1" })).toEqual({
      ok: false,
      reason: "Tasks cannot be stopped from this app.",
    });
    expect((await value<{ tasks: unknown[] }>("status.get", {})).tasks).toEqual([]);
  });
});

describe("open terminals", () => {
  it("lists the terminals the backend opened, closes one for the person, and pushes the new list", async () => {
    await f.close();
    const listeners = new Set<() => void>();
    const open = [
      {
        sessionId: "terminal-3-abc",
        folder: "/w/app",
        shell: "/bin/bash",
        openedAt: 1,
        expiresAt: 2,
        attached: true,
        decidedBy: "user",
        pid: 99,
      },
    ];
    const closed: string[] = [];
    const terminals = {
      list: () => [...open],
      onChange: (listener: () => void) => {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
      close(sessionId: string) {
        closed.push(sessionId);
        const before = open.length;
        open.splice(0, open.length, ...open.filter((t) => t.sessionId !== sessionId));
        listeners.forEach((l) => l());
        return open.length < before;
      },
    };
    f = await startRouterFixture({ ui: (ui) => ({ ...ui, terminals }) });
    const fx = f;
    expect((await value<{ terminals: unknown[] }>("status.get", {})).terminals).toEqual([open[0]]);
    const pushed: unknown[] = [];
    fx.router.subscribe("status.terminals", (payload) => pushed.push(payload));
    expect(await value("terminals.close", { sessionId: "terminal-3-abc" })).toEqual({
      ok: true,
      closed: true,
    });
    expect(closed).toEqual(["terminal-3-abc"]);
    expect(pushed).toEqual([{ terminals: [] }]);
    expect(await value("terminals.close", { sessionId: "terminal-3-abc" })).toEqual({
      ok: true,
      closed: false,
    });
  });
});

describe("elevated mode from the app's window", () => {
  it("starts and ends elevation, shows it on status and in explain, and writes both to Activity", async () => {
    const started = await value<{ ok: true; elevation: { agentId: string; until: number; by: string } }>(
      "elevation.start",
      { agentId: "codex", forMs: 15 * 60_000 },
    );
    expect(started.ok).toBe(true);
    expect(started.elevation).toMatchObject({ agentId: "codex", by: "app" });
    expect(JSON.parse(await approvalsText()).elevated.codex.until).toBe(started.elevation.until);

    const status = await value<{ elevated: { agentId: string; until: number }[] }>("status.get", {});
    expect(status.elevated).toEqual([
      expect.objectContaining({ agentId: "codex", until: started.elevation.until }),
    ]);
    const explained = await value<{ ok: true; explanation: Explanation }>("allowlist.explain", {
      agentId: "codex",
      command: "git status",
    });
    expect(explained.explanation.elevatedUntil).toBe(started.elevation.until);
    expect(explained.explanation.security).toBe("full");

    expect(await value("elevation.end", { agentId: "codex" })).toEqual({ ended: ["codex"] });
    expect(JSON.parse(await approvalsText()).elevated).toBeUndefined();
    expect((await value<{ elevated: unknown[] }>("status.get", {})).elevated).toEqual([]);

    const activity = await value<{ records: { reason: string; source: string; decision: string }[] }>(
      "activity.list",
      { event: "elevation" },
    );
    expect(activity.records.map((r) => [r.source, r.decision])).toEqual([
      ["elevate:app", "deny"],
      ["elevate:app", "allow-once"],
    ]);
    expect(activity.records[1]?.reason).toContain("agent codex runs with security=full until");
    expect(activity.records[0]?.reason).toContain("elevated mode ended early");
  });

  it("refuses an elevation longer than 8 hours and changes nothing", async () => {
    const before = await approvalsText();
    const result = await f.call("elevation.start", { forMs: 8 * 60 * 60_000 + 1 });
    expect(result).toMatchObject({ ok: false, error: { code: "bad_request" } });
    expect(await approvalsText()).toBe(before);
  });

  it("ending when nothing is elevated ends nothing and writes no audit line", async () => {
    expect(await value("elevation.end", {})).toEqual({ ended: [] });
    const activity = await value<{ records: unknown[] }>("activity.list", { event: "elevation" });
    expect(activity.records).toEqual([]);
  });
});
