// The approvals file on disk: created on first use with a fresh token, never silently replaced, updated
// under a lock, with entry bookkeeping after runs.
import fs from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AllowlistEntryError,
  ApprovalsStore,
  InvalidFileError,
  newEntryId,
  type ApprovalsFile,
} from "../../../src/core/approvals/index.js";
import { InvalidFileError as StoreInvalidFileError } from "../../../src/core/store/index.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let clock: number;
let store: ApprovalsStore;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-approvals-");
  clock = 1_700_000_000_000;
  store = new ApprovalsStore({
    path: t.paths.approvals,
    defaultSocketPath: t.paths.defaultSocket,
    now: () => clock,
  });
});
afterEach(async () => t.cleanup());

async function onDisk(): Promise<ApprovalsFile> {
  return JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as ApprovalsFile;
}

describe("load and ensure", () => {
  it("load never creates the file", async () => {
    expect(await store.load()).toEqual({ status: "missing", path: t.paths.approvals });
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });

  it("ensure creates a 0600 file with version 1, the socket path, a fresh token and no defaults", async () => {
    const state = await store.ensure();
    expect(state.status).toBe("ok");
    const file = await onDisk();
    expect(file).toMatchObject({ version: 1, socket: { path: t.paths.defaultSocket }, agents: {} });
    expect(file.defaults).toBeUndefined();
    expect(file.socket.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await fs.stat(t.paths.approvals)).mode & 0o777).toBe(0o600);
  });

  it("two homes get different tokens", async () => {
    const other = await makeTempHome("gatehouse-approvals-");
    try {
      const otherStore = new ApprovalsStore({
        path: other.paths.approvals,
        defaultSocketPath: other.paths.defaultSocket,
      });
      await store.ensure();
      await otherStore.ensure();
      const mine = await onDisk();
      const theirs = JSON.parse(await fs.readFile(other.paths.approvals, "utf8")) as ApprovalsFile;
      expect(mine.socket.token).not.toBe(theirs.socket.token);
    } finally {
      await other.cleanup();
    }
  });

  it("ensure keeps an existing file as it is", async () => {
    await store.ensure();
    const before = await fs.readFile(t.paths.approvals, "utf8");
    await store.ensure();
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(before);
  });

  it("an invalid file stays invalid and untouched, with an error naming the file", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    const bytes = '{"version": 2, "socket": {}}';
    await fs.writeFile(t.paths.approvals, bytes);
    const state = await store.ensure();
    expect(state.status).toBe("invalid");
    if (state.status !== "invalid") return;
    expect(state.error).toContain(t.paths.approvals);
    expect(state.error).toContain("version");
    await expect(store.addEntry("*", { pattern: "/usr/bin/git" })).rejects.toBeInstanceOf(
      StoreInvalidFileError,
    );
    await expect(store.applyPreset("trust")).rejects.toBeInstanceOf(InvalidFileError);
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(bytes);
  });

  it("not-JSON is invalid too", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.approvals, "{ nope");
    const state = await store.load();
    expect(state.status).toBe("invalid");
  });

  it("keeps keys it does not know when it writes", async () => {
    await store.ensure();
    const file = (await onDisk()) as ApprovalsFile & { future?: unknown };
    await fs.writeFile(t.paths.approvals, JSON.stringify({ ...file, future: { x: 1 } }));
    await store.applyPreset("ask");
    expect(((await onDisk()) as { future?: unknown }).future).toEqual({ x: 1 });
  });

  it("load returns the same object while the file is unchanged, and a new one after a change", async () => {
    await store.ensure();
    const a = await store.load();
    expect(await store.load()).toBe(a);
    await store.applyPreset("ask");
    const b = await store.load();
    expect(b).not.toBe(a);
    expect(b.status === "ok" && b.file.defaults?.security).toBe("allowlist");
  });
});

describe("settings", () => {
  it("applies a preset to defaults or to one agent, keeping entries and the token", async () => {
    const added = await store.addEntry("*", { pattern: "/usr/bin/git" });
    const token = (await onDisk()).socket.token;
    await store.applyPreset("ask");
    await store.applyPreset("locked", "claude-code");
    const file = await onDisk();
    expect(file.defaults).toEqual({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    expect(file.agents["claude-code"]).toMatchObject({ security: "deny", ask: "off", askFallback: "deny" });
    expect(file.agents["*"]?.allowlist?.[0]?.id).toBe(added.id);
    expect(file.socket.token).toBe(token);
  });

  it("setAgentSettings edits one field, 'defaults' edits defaults, undefined removes a field", async () => {
    await store.setAgentSettings("defaults", { security: "full" });
    await store.setAgentSettings("codex", { ask: "always", askFallback: "allowlist" });
    await store.setAgentSettings("codex", { ask: undefined });
    const file = await onDisk();
    expect(file.defaults).toEqual({ security: "full" });
    expect(file.agents.codex).toEqual({ askFallback: "allowlist" });
  });

  it("refuses a value that is not a setting, writing nothing", async () => {
    await expect(store.setAgentSettings("x", { security: "yes" as never })).rejects.toBeInstanceOf(
      AllowlistEntryError,
    );
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });
});

describe("entries", () => {
  it("addEntry validates, assigns a random id and createdAt, source user by default", async () => {
    const a = await store.addEntry("claude", {
      pattern: "~/bin/rg",
      argPattern: "^-n ",
      cwd: "~/Projects/**",
      usesLeft: 3,
    });
    const b = await store.addEntry("claude", { pattern: "rg" });
    expect(a).toMatchObject({
      pattern: "~/bin/rg",
      argPattern: "^-n ",
      cwd: "~/Projects/**",
      usesLeft: 3,
      source: "user",
      createdAt: clock,
    });
    expect(a.id).not.toBe(b.id);
    expect((await onDisk()).agents.claude?.allowlist?.map((e) => e.id)).toEqual([a.id, b.id]);
  });

  it("addEntry refuses an invalid glob or regex with the field and reason, leaving the file alone", async () => {
    await store.ensure();
    const before = await fs.readFile(t.paths.approvals, "utf8");
    await expect(store.addEntry("*", { pattern: "relative/bin" })).rejects.toMatchObject({
      field: "pattern",
    });
    await expect(store.addEntry("*", { pattern: "/bin/x", argPattern: "([" })).rejects.toMatchObject({
      field: "argPattern",
    });
    await expect(store.addEntry("*", { pattern: "/bin/x", cwd: "here" })).rejects.toMatchObject({
      field: "cwd",
    });
    await expect(store.addEntry("*", { pattern: "/bin/x", usesLeft: -1 })).rejects.toMatchObject({
      field: "usesLeft",
    });
    expect(await fs.readFile(t.paths.approvals, "utf8")).toBe(before);
  });

  it("updateEntry changes fields and validates the result; removeEntry removes one", async () => {
    const a = await store.addEntry("*", { pattern: "/usr/bin/git", expiresAt: 5 });
    const updated = await store.updateEntry("*", a.id, { argPattern: "^status$", expiresAt: undefined });
    expect(updated).toMatchObject({ id: a.id, argPattern: "^status$" });
    expect(updated.expiresAt).toBeUndefined();
    await expect(store.updateEntry("*", a.id, { argPattern: "(" })).rejects.toMatchObject({
      field: "argPattern",
    });
    await expect(store.updateEntry("*", "nope", {})).rejects.toMatchObject({ field: "id" });
    expect(await store.removeEntry("*", a.id)).toBe(true);
    expect(await store.removeEntry("*", a.id)).toBe(false);
    expect((await onDisk()).agents["*"]?.allowlist).toEqual([]);
  });

  it("recordUse sets last use and finds entries in '*', leaving usesLeft to consumeUses", async () => {
    const shared = await store.addEntry("*", { pattern: "/usr/bin/git", usesLeft: 2 });
    const own = await store.addEntry("claude", { pattern: "/usr/bin/rg" });
    clock += 1000;
    await store.recordUse("claude", [
      { entryId: shared.id, command: "git status && git log", resolvedPath: "/usr/bin/git" },
      { entryId: own.id, command: "rg x", resolvedPath: "/usr/bin/rg" },
      { entryId: "gone", command: "x", resolvedPath: null },
    ]);
    const file = await onDisk();
    expect(file.agents["*"]?.allowlist?.[0]).toMatchObject({
      usesLeft: 2,
      lastUsedAt: clock,
      lastUsedCommand: "git status && git log",
      lastResolvedPath: "/usr/bin/git",
    });
    expect(file.agents.claude?.allowlist?.[0]).toMatchObject({ lastUsedAt: clock, lastUsedCommand: "rg x" });
    expect(file.agents.claude?.allowlist?.[0]?.usesLeft).toBeUndefined();
  });

  it("recordUse does not create a missing file", async () => {
    await store.recordUse("x", [{ entryId: "a", command: "c", resolvedPath: null }]);
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });

  it("consumeUses takes one use of each limited entry once, in the agent's list and in '*', skipping unlimited ones", async () => {
    const shared = await store.addEntry("*", { pattern: "/usr/bin/git", usesLeft: 2 });
    const own = await store.addEntry("claude", { pattern: "/usr/bin/rg", usesLeft: 1 });
    const unlimited = await store.addEntry("claude", { pattern: "/usr/bin/ls" });
    expect(await store.consumeUses("claude", [shared.id, shared.id, own.id, unlimited.id])).toEqual([]);
    const file = await onDisk();
    expect(file.agents["*"]?.allowlist?.[0]?.usesLeft).toBe(1);
    expect(file.agents.claude?.allowlist?.map((e) => e.usesLeft ?? null)).toEqual([0, null]);
  });

  it("consumeUses takes nothing when one entry has no use left or is gone, and says which", async () => {
    const some = await store.addEntry("*", { pattern: "/usr/bin/git", usesLeft: 3 });
    const none = await store.addEntry("*", { pattern: "/usr/bin/rg", usesLeft: 0 });
    expect(await store.consumeUses("x", [some.id, none.id, "gone"])).toEqual([none.id, "gone"]);
    expect((await onDisk()).agents["*"]?.allowlist?.map((e) => e.usesLeft)).toEqual([3, 0]);
  });

  it("consumeUses never lets two stores of the same file (two processes) both take an entry's last use", async () => {
    const limited = await store.addEntry("*", { pattern: "/usr/bin/git", usesLeft: 1 });
    const other = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    await other.load(); // both have read the entry with its one use left
    const results = await Promise.all([
      store.consumeUses("x", [limited.id]),
      other.consumeUses("x", [limited.id]),
    ]);
    expect(results.filter((usedUp) => usedUp.length === 0)).toHaveLength(1);
    expect((await onDisk()).agents["*"]?.allowlist?.[0]?.usesLeft).toBe(0);
  });

  it("consumeUses does not create a missing file and takes nothing from it", async () => {
    expect(await store.consumeUses("x", ["a"])).toEqual(["a"]);
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });
});

describe("allow always", () => {
  it("saves confirmed entries with source allow-always into the agent's list, once", async () => {
    const saved = await store.saveAllowAlways("claude", [
      { pattern: "/usr/bin/rm" },
      { pattern: "/usr/bin/python3", argPattern: "^-c x$" },
    ]);
    expect(saved.map((e) => [e.pattern, e.source])).toEqual([
      ["/usr/bin/rm", "allow-always"],
      ["/usr/bin/python3", "allow-always"],
    ]);
    const again = await store.saveAllowAlways("claude", [{ pattern: "/usr/bin/rm" }]);
    expect(again[0]?.id).toBe(saved[0]?.id);
    expect((await onDisk()).agents.claude?.allowlist).toHaveLength(2);
  });

  it.each([
    "/bin/bash",
    "/usr/bin/sh",
    "/usr/local/bin/zsh",
    "C:\\Windows\\System32\\cmd.exe",
    "/usr/bin/pwsh",
    "/usr/bin/sudo",
    "doas",
    "*",
    "/usr/**",
  ])("refuses a bare grant of %s, writing nothing", async (pattern) => {
    await expect(store.saveAllowAlways("claude", [{ pattern }])).rejects.toBeInstanceOf(AllowlistEntryError);
    await expect(fs.stat(t.paths.approvals)).rejects.toThrow();
  });

  it("accepts a shell with an exact argPattern", async () => {
    const [saved] = await store.saveAllowAlways("claude", [{ pattern: "/bin/bash", argPattern: "^-c ls$" }]);
    expect(saved).toMatchObject({ pattern: "/bin/bash", argPattern: "^-c ls$" });
  });
});

describe("socket token", () => {
  it("rotateToken replaces the token and keeps everything else", async () => {
    await store.applyPreset("ask");
    const before = await onDisk();
    await store.rotateToken();
    const after = await onDisk();
    expect(after.socket.token).not.toBe(before.socket.token);
    expect({ ...after, socket: { ...after.socket, token: "" } }).toEqual({
      ...before,
      socket: { ...before.socket, token: "" },
    });
  });
});

describe("file safety", () => {
  it("refuses to write through a symlink and leaves its target alone", async () => {
    const target = `${t.home}/elsewhere.json`;
    const valid = JSON.stringify({ version: 1, socket: { path: "x", token: "t".repeat(43) }, agents: {} });
    await fs.writeFile(target, valid);
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.symlink(target, t.paths.approvals);
    expect((await store.load()).status).toBe("ok");
    await expect(store.addEntry("*", { pattern: "/usr/bin/git" })).rejects.toThrow(/symbolic link/);
    expect(await fs.readFile(target, "utf8")).toBe(valid);
  });

  it("writes the file back 0600 even when someone loosened its mode", async () => {
    await store.ensure();
    await fs.chmod(t.paths.approvals, 0o644);
    await store.addEntry("*", { pattern: "/usr/bin/git" });
    expect((await fs.stat(t.paths.approvals)).mode & 0o777).toBe(0o600);
  });
});

describe("entry ids", () => {
  it("a new entry id never starts with '-', so `gatehouse allowlist remove ID` never reads it as an option", () => {
    const taken = new Set<string>();
    for (let i = 0; i < 2_000; i++) taken.add(newEntryId(taken));
    expect(taken.size).toBe(2_000);
    expect([...taken].filter((id) => id.startsWith("-"))).toEqual([]);
    expect([...taken].every((id) => /^[A-Za-z0-9_][A-Za-z0-9_-]{7}$/.test(id))).toBe(true);
  });
});
