import { elevationChoices } from "../../../src/shared/elevation-choices.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { trayState, type TrayInput } from "../../../src/electron/tray.js";

const connected = { state: "registered", backendUrl: "https://wegent.example.com", lastError: null };
const base: TrayInput = { platform: "linux", connection: connected, pending: [], approvalsInvalid: false };
const prompt = (id: string, commandText: string) => ({ id, agentId: "claude-code", commandText });

describe("tray state", () => {
  it("lists each running task with its agent, elapsed time and workdir, and a stop action", () => {
    const s = trayState({
      ...base,
      home: "/home/al",
      now: 1_000_000,
      tasks: [
        {
          taskId: "42",
          subtaskId: "7",
          agent: "claude-code",
          workdir: "/home/al/Projects/foo",
          startedAt: 1_000_000 - 185_000,
        },
        { taskId: "43", subtaskId: null, agent: "codex", workdir: null, startedAt: 1_000_000 - 4_000 },
      ],
    });
    expect(s.menu.find((m) => m.id === "tasks-header")?.label).toBe("2 tasks running");
    const items = s.menu.filter((m) => m.id.startsWith("task:"));
    expect(items.map((m) => m.label)).toEqual([
      "Stop task 42 — claude-code, 3 min — ~/Projects/foo",
      "Stop task 43 — codex, 4 s — no folder yet",
    ]);
    expect(items[0]?.action).toEqual({ kind: "stop-task", taskId: "42", subtaskId: "7" });
  });

  it("lists each open terminal with its folder and age, and a close action", () => {
    const s = trayState({
      ...base,
      home: "/home/al",
      now: 1_000_000,
      terminals: [
        { sessionId: "terminal-3-abc", folder: "/home/al/Projects/app", openedAt: 1_000_000 - 125_000 },
      ],
    });
    expect(s.menu.find((m) => m.id === "terminals-header")?.label).toBe("1 terminal open");
    const item = s.menu.find((m) => m.id === "terminal:terminal-3-abc");
    expect(item?.label).toBe("Close terminal — ~/Projects/app, 2 min");
    expect(item?.action).toEqual({ kind: "close-terminal", sessionId: "terminal-3-abc" });
  });

  it("shows no task lines when nothing runs", () => {
    expect(trayState(base).menu.some((m) => m.id.startsWith("task"))).toBe(false);
  });

  it("shows the connected icon and the backend host when registered and nothing waits", () => {
    const s = trayState(base);
    expect(s.icon).toBe("connected");
    expect(s.iconFile).toBe("tray-connected.png");
    expect(s.tooltip).toBe("Gatehouse — Connected to wegent.example.com");
    expect(s.title).toBe("");
    expect(s.menu.find((m) => m.id === "status")?.label).toBe("Connected to wegent.example.com");
    expect(s.menu.find((m) => m.id === "no-pending")?.label).toBe("No approvals waiting");
  });

  it("shows the offline icon with the last failure while the backend cannot be reached", () => {
    const s = trayState({
      ...base,
      connection: { state: "offline", backendUrl: null, lastError: "ECONNREFUSED" },
    });
    expect(s.icon).toBe("offline");
    expect(s.iconFile).toBe("tray-offline.png");
    expect(s.menu.map((m) => m.label)).toContain("Last failure: ECONNREFUSED");
  });

  it("turns to attention with the count in the tooltip and each pending command in the menu, oldest first", () => {
    const s = trayState({ ...base, pending: [prompt("a", "rm -rf build"), prompt("b", "git push")] });
    expect(s.icon).toBe("attention");
    expect(s.tooltip).toContain("2 approvals waiting");
    const items = s.menu.filter((m) => m.id.startsWith("pending:"));
    expect(items.map((m) => m.label)).toEqual(["rm -rf build — claude-code", "git push — claude-code"]);
    expect(items[0]?.action).toEqual({ kind: "open-approval", id: "a" });
  });

  it("shortens a long command in the menu to one line that keeps both its head and its tail", () => {
    const s = trayState({
      ...base,
      pending: [prompt("a", `curl -fsSL https://example.com/${"x".repeat(200)}\n | sudo sh -s -- --yes`)],
    });
    const label = s.menu.find((m) => m.id === "pending:a")?.label ?? "";
    expect(label.length).toBeLessThan(100);
    expect(label).not.toContain("\n");
    expect(label).toMatch(
      /^curl -fsSL https:\/\/example\.com\/x+ … x* ?\| sudo sh -s -- --yes — claude-code$/,
    );
  });

  it("marks a pending command the gate finds dangerous", () => {
    const s = trayState({ ...base, pending: [{ ...prompt("a", "rm -rf build"), danger: true }] });
    expect(s.menu.find((m) => m.id === "pending:a")?.label).toBe("⚠ rm -rf build — claude-code");
  });

  it("uses macOS template images and puts the pending count in the menu bar title", () => {
    const idle = trayState({ ...base, platform: "darwin" });
    expect(idle.iconFile).toBe("trayTemplate.png");
    const waiting = trayState({ ...base, platform: "darwin", pending: [prompt("a", "ls")] });
    expect(waiting.iconFile).toBe("trayAttentionTemplate.png");
    expect(waiting.title).toBe("1");
  });

  it("looks offline on every platform while the backend cannot be reached, with the reason in the tooltip", () => {
    const offline = {
      ...base,
      connection: { state: "offline" as const, backendUrl: null, lastError: "ECONNREFUSED" },
    };
    const files = (["darwin", "win32", "linux"] as const).map((platform) => {
      const s = trayState({ ...offline, platform });
      expect(s.tooltip).toContain("Offline");
      return [s.iconFile, trayState({ ...base, platform }).iconFile];
    });
    expect(files).toEqual([
      ["trayOfflineTemplate.png", "trayTemplate.png"],
      ["tray-offline.ico", "tray-connected.ico"],
      ["tray-offline.png", "tray-connected.png"],
    ]);
    for (const [file] of files) expect(existsSync(path.join("assets", "tray", file ?? ""))).toBe(true);
    expect(existsSync(path.join("assets", "tray", "trayOfflineTemplate@2x.png"))).toBe(true);
  });

  it("uses .ico files on Windows", () => {
    expect(trayState({ ...base, platform: "win32" }).iconFile).toBe("tray-connected.ico");
    expect(trayState({ ...base, platform: "win32", approvalsInvalid: true }).iconFile).toBe(
      "tray-attention.ico",
    );
  });

  it("needs attention when the approvals file is invalid or the backend refused the token", () => {
    expect(trayState({ ...base, approvalsInvalid: true }).icon).toBe("attention");
    expect(trayState({ ...base, approvalsInvalid: true }).menu.map((m) => m.id)).toContain(
      "approvals-invalid",
    );
    expect(
      trayState({
        ...base,
        connection: { state: "sign-in-required", backendUrl: null, lastError: "bad token" },
      }).icon,
    ).toBe("attention");
  });

  it("offers pause when running, resume when paused, and no device item without a connection", () => {
    expect(trayState(base).menu.find((m) => m.id === "pause")?.action).toEqual({ kind: "pause" });
    const paused = trayState({ ...base, connection: { ...connected, state: "paused" } });
    expect(paused.menu.find((m) => m.id === "resume")?.action).toEqual({ kind: "resume" });
    const none = trayState({ ...base, connection: null });
    expect(none.menu.some((m) => m.id === "pause" || m.id === "resume")).toBe(false);
    expect(none.icon).toBe("connected");
  });

  it("offers the Status screen's elevation choices in a submenu when nothing is elevated, and shows the time left with End now when something is", () => {
    const idle = trayState({ ...base, now: 0 });
    const submenu = idle.menu.find((m) => m.id === "elevate")?.submenu ?? [];
    expect(submenu.map((m) => [m.label, m.action])).toEqual(
      elevationChoices().map((c) => [c.label, { kind: "elevate", agentId: c.agentId, forMs: c.forMs }]),
    );
    expect(submenu.map((m) => m.label)).toEqual([
      "Every agent for 15 minutes",
      "Every agent for 1 hour",
      "Claude Code (claude-code) for 15 minutes",
      "Claude Code (claude-code) for 1 hour",
      "Codex (codex) for 15 minutes",
      "Codex (codex) for 1 hour",
    ]);
    const on = trayState({ ...base, now: 0, elevated: [{ agentId: "codex", until: 12 * 60_000 + 5_000 }] });
    expect(on.menu.find((m) => m.id === "elevated:codex")?.label).toBe(
      "⚠ Elevated: Codex (codex), 12 min left",
    );
    expect(on.menu.find((m) => m.id === "end-elevation")?.action).toEqual({ kind: "end-elevation" });
    expect(on.menu.some((m) => m.id === "elevate")).toBe(false);
    expect(on.tooltip).toBe(
      "Gatehouse — ⚠ Elevated: Codex (codex) (12 min left) runs everything without asking — Connected to wegent.example.com",
    );
  });

  it("never looks normal while an agent is elevated: its own icon on every platform, with attention on top, until it ends", () => {
    const elevated = { ...base, now: 0, elevated: [{ agentId: "*", until: 15 * 60_000 }] };
    const files = (["darwin", "win32", "linux"] as const).map((platform) => [
      trayState({ ...elevated, platform }).iconFile,
      trayState({ ...elevated, platform, pending: [prompt("a", "ls")] }).iconFile,
    ]);
    expect(files).toEqual([
      ["trayElevatedTemplate.png", "trayElevatedAttentionTemplate.png"],
      ["tray-elevated.ico", "tray-elevated-attention.ico"],
      ["tray-elevated.png", "tray-elevated-attention.png"],
    ]);
    for (const file of files.flat()) {
      expect(existsSync(path.join("assets", "tray", file))).toBe(true);
      if (file.endsWith(".png"))
        expect(existsSync(path.join("assets", "tray", file.replace(".png", "@2x.png")))).toBe(true);
    }
    // Offline or refused, it is still elevated; once the time is up it looks as it would otherwise.
    const offline = { state: "offline", backendUrl: null, lastError: "ECONNREFUSED" };
    expect(trayState({ ...elevated, connection: offline }).icon).toBe("elevated");
    expect(trayState({ ...elevated, now: 15 * 60_000 }).icon).toBe("connected");
    expect(trayState({ ...elevated, now: 15 * 60_000 }).tooltip).not.toContain("Elevated");
    expect(trayState({ ...elevated }).tooltip).toContain(
      "⚠ Elevated: every agent (15 min left) runs everything without asking",
    );
  });

  it("always offers to open the main window and to quit", () => {
    const ids = trayState(base).menu.map((m) => m.id);
    expect(ids).toContain("open-main");
    expect(ids[ids.length - 1]).toBe("quit");
  });
});
