// Web terminals against a whole app (the composition root `gatehouse serve` builds) and the test backend
// starting, attaching, typing into and closing them as Wegent's backend does. Mirrors Wegent's contract
// cases (output buffered until attach, input, resize, exit code, close) and adds the gate's: no terminal
// without an allowlist entry for the shell whose cwd covers the folder, or a person; a folder outside the
// roots is refused; a terminal never outlives its connection, its time to live, or the person's close.
//
// The shell is a wrapper that drops to uid 65534 (nobody) before bash starts, in a folder that user owns:
// whatever a test types runs unprivileged (test/support/other-user.ts).
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import type { PromptRequest } from "../../../src/core/policy/types.js";
import { OTHER_UID, otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { DEVICE_ID, startTaskApp, type TaskApp } from "../tasks/harness.js";

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));

let t: TempHome;
let app: TaskApp;
let project: string;
let shell: string;
let started: string;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function setEntries(entries: Array<{ pattern: string; cwd?: string }>): Promise<void> {
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "allowlist", ask: "on-miss", askFallback: "deny" });
  await store.update((file) => ({
    ...file,
    agents: { ...file.agents, "*": { ...file.agents["*"], allowlist: [] } },
  }));
  for (const entry of entries) await store.addEntry("*", entry);
}

const entryForProject = () => ({ pattern: shell, cwd: `${path.dirname(project)}/**` });

describe.skipIf(otherUserUnavailable !== null)("web terminals", () => {
  beforeAll(async () => {
    t = await makeTempHome("gh-terminals-");
    await fs.chmod(t.home, 0o711);
    const projects = path.join(t.home, "Projects");
    project = path.join(projects, "app");
    await fs.mkdir(project, { recursive: true });
    await fs.chmod(projects, 0o755);
    await fs.chown(project, OTHER_UID, OTHER_UID);
    started = path.join(t.home, "shell-started");
    shell = path.join(t.home, "nobody-shell");
    await fs.writeFile(
      shell,
      `#!/bin/sh\necho started >> '${started}'\nexec ${SETPRIV} --reuid=${OTHER_UID} --regid=${OTHER_UID} --clear-groups -- /bin/bash --noprofile --norc -i\n`,
      { mode: 0o755 },
    );
    app = await startTaskApp({ t, env: { SHELL: shell, LOCAL_WORKDIR_ALLOWED_ROOTS: projects } });
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await t?.cleanup();
  });

  it("refuses a terminal with no allowlist entry and nobody to ask, and starts no shell", async () => {
    await setEntries([]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project, projectId: 7 });
    expect(ack.success).toBe(false);
    expect(String(ack.error)).toMatch(/^Terminal not opened: nobody at this device allowed it in time/);
    expect(String(ack.error)).toContain(`an allowlist entry for ${shell}`);
    expect(existsSync(started)).toBe(false);
    expect(app.services.terminals!.list()).toEqual([]);
  });

  it("refuses a terminal whose entry names the shell but no folder, or another folder", async () => {
    await setEntries([
      { pattern: shell },
      { pattern: shell, cwd: `${t.home}/Elsewhere/**` },
      { pattern: "*", cwd: `${project}/**` },
    ]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project });
    expect(ack.success).toBe(false);
    expect(existsSync(started)).toBe(false);
  });

  it("refuses a folder outside the allowed roots before anything is decided", async () => {
    await setEntries([{ pattern: shell, cwd: "/**" }]);
    const outside = await app.backend.startTerminal(DEVICE_ID, { path: path.join(t.home, ".ssh") });
    expect(outside.success).toBe(false);
    expect(String(outside.error)).toMatch(
      /^Project path is outside allowed workspace roots\. .*protected folder/,
    );
    const missing = await app.backend.startTerminal(DEVICE_ID, { path: path.join(project, "missing") });
    expect(missing).toMatchObject({
      success: false,
      error: `Project path does not exist: ${path.join(project, "missing")}`,
    });
    expect(existsSync(started)).toBe(false);
  });

  it("asks a person in plain words, and opens when the person allows", async () => {
    await setEntries([]);
    const prompts: PromptRequest[] = [];
    const detach = app.services.broker.attach({
      kind: "test",
      show: (prompt, decide) => {
        prompts.push(prompt);
        setImmediate(() => decide({ decision: "allow-once" })); // a person answers after seeing it
      },
      withdraw: () => undefined,
    });
    try {
      const ack = await app.backend.startTerminal(DEVICE_ID, { path: project, projectId: 3 });
      expect(ack).toMatchObject({
        success: true,
        type: "terminal",
        transport: "socketio",
        project_id: 3,
        path: project,
      });
      expect(prompts).toHaveLength(1);
      expect(prompts[0]!.reason).toBe(
        "the backend wants a terminal in ~/Projects/app; a terminal runs anything typed into it",
      );
      const [view] = app.services.terminals!.list();
      expect(view).toMatchObject({
        sessionId: ack.session_id,
        folder: project,
        decidedBy: "user",
        attached: false,
      });
      app.backend.terminals.close(String(ack.session_id));
      await waitFor(() => app.services.terminals!.list().length === 0, { what: "the terminal to close" });
      await waitFor(() => !alive(view!.pid), { what: "the shell to exit" });
    } finally {
      detach();
    }
  });

  it("keeps output until the browser attaches, then relays it; input, resize and the exit code reach both ends", async () => {
    await setEntries([entryForProject()]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project, rows: 40, cols: 120 });
    expect(ack).toMatchObject({ success: true, path: project });
    const id = String(ack.session_id);
    expect(app.services.terminals!.list()[0]).toMatchObject({ decidedBy: expect.stringMatching(/^rule:/) });
    // the same shell the refusals above never started (the wrapper notes its start as it runs)
    await waitFor(() => existsSync(started), { what: "the shell to start" });
    // the shell runs and prints before anyone attached: the backend hears nothing yet
    app.backend.terminals.input(id, "touch typed-before-attach; id -u; stty size\r");
    await waitFor(() => existsSync(path.join(project, "typed-before-attach")), {
      what: "the typed command to run",
    });
    expect(app.backend.eventsNamed("terminal:output")).toHaveLength(0);
    expect(await app.backend.terminals.attach(id)).toMatchObject({ success: true, session_id: id });
    await waitFor(() => app.backend.terminals.browser(id).output.includes("40 120"), {
      what: "the output kept before the attach",
    });
    expect(app.backend.terminals.browser(id).output).toContain(String(OTHER_UID));
    app.backend.terminals.resize(id, 30, 100);
    app.backend.terminals.input(id, "stty size\r");
    await waitFor(() => app.backend.terminals.browser(id).output.includes("30 100"), {
      what: "the new size",
    });
    app.backend.terminals.input(id, "exit 3\r");
    await waitFor(() => app.backend.terminals.browser(id).exits.length === 1, { what: "terminal:exit" });
    expect(app.backend.terminals.browser(id).exits[0]).toEqual({ session_id: id, exit_code: 3 });
    expect(app.backend.terminals.refused).toEqual([]);
    await waitFor(() => app.services.terminals!.list().length === 0, { what: "the session to be forgotten" });
    await app.services.audit.close();
    const lines = (await fs.readFile(t.paths.audit, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.sessionKey === `terminal:${id}`);
    expect(lines.map((l) => l.event)).toEqual(["decision", "run"]);
    expect(lines[1]).toMatchObject({
      exitCode: 3,
      reason: "terminal ended: the shell exited",
      commandKey: "terminal",
    });
  });

  it("answers controls for an unknown session as Wegent does", async () => {
    expect(await app.backend.call(DEVICE_ID, "terminal:attach", { session_id: "nope" })).toEqual({
      success: false,
      error: "Terminal session not found",
    });
    expect(await app.backend.call(DEVICE_ID, "terminal:input", { session_id: "nope" })).toEqual({
      success: false,
      error: "data is required",
    });
    expect(await app.backend.call(DEVICE_ID, "terminal:close", { session_id: "nope" })).toEqual({
      success: true,
    });
    expect(await app.backend.call(DEVICE_ID, "terminal:resize", {})).toEqual({
      success: false,
      error: "session_id is required",
    });
    expect(await app.backend.call(DEVICE_ID, "device:start_terminal_session", { session_id: "x" })).toEqual({
      success: false,
      error: "project_id is required",
    });
  });

  it("closes when the person closes it, and the browser hears why", async () => {
    await setEntries([entryForProject()]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project });
    const id = String(ack.session_id);
    await app.backend.terminals.attach(id);
    const pid = app.services.terminals!.list().find((v) => v.sessionId === id)!.pid;
    expect(app.services.terminals!.close(id)).toBe(true);
    await waitFor(() => app.backend.terminals.browser(id).exits.length === 1, { what: "terminal:exit" });
    expect(app.backend.terminals.browser(id).exits[0]).toMatchObject({
      session_id: id,
      error: "Terminal session ended: closed by the person at this device",
    });
    await waitFor(() => !alive(pid), { what: "the shell to be killed" });
  });

  it("ends when its time to live runs out", async () => {
    await setEntries([entryForProject()]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project, ttlSeconds: 1 });
    const id = String(ack.session_id);
    await app.backend.terminals.attach(id);
    await waitFor(() => app.backend.terminals.browser(id).exits.length === 1, { what: "the expiry" });
    expect(app.backend.terminals.browser(id).exits[0]).toMatchObject({
      error: "Terminal session ended: its time to live ran out",
    });
  });

  it("never outlives the connection that opened it", async () => {
    await setEntries([entryForProject()]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: project });
    expect(ack.success).toBe(true);
    const pid = app.services.terminals!.list().find((v) => v.sessionId === ack.session_id)!.pid;
    await app.backend.restart();
    await waitFor(() => app.services.terminals!.list().length === 0, {
      what: "the terminal to close with its connection",
    });
    await waitFor(() => !alive(pid), { what: "the shell to be killed" });
    await waitFor(() => app.backend.isOnline(DEVICE_ID), {
      what: "the device to register again",
      timeoutMs: 20_000,
    });
  });

  it("opens in the workspace root when the backend names no folder", async () => {
    await setEntries([{ pattern: shell, cwd: `${t.paths.executorHome}/**` }]);
    const ack = await app.backend.startTerminal(DEVICE_ID, { path: "" });
    expect(ack).toMatchObject({
      success: true,
      path: await fs.realpath(app.services.workdir!.workspaceRoot),
    });
    app.backend.terminals.close(String(ack.session_id));
    await waitFor(() => app.services.terminals!.list().length === 0, { what: "the terminal to close" });
  });
});
