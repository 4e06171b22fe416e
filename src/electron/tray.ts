// The tray's look and menu as pure functions of the app's state (architecture.md "Electron shell"):
// icon connected / offline / attention (and elevated, with or without attention, while any agent runs
// everything without asking), the pending count in the title (macOS) and tooltip, and a menu
// listing pending approvals, running agent tasks (each with a stop action), an update when one is ready,
// the windows, pause/resume and quit. shell.ts turns this into Electron calls.
import { elevationChoices, elevationWho } from "../shared/elevation-choices.js";

/** `elevated…`: some agent runs everything without asking (issue 32): never a normal-looking icon then. */
export type TrayIcon = "connected" | "offline" | "attention" | "elevated" | "elevated-attention";

export type TrayAction =
  | { kind: "open-approval"; id: string }
  | { kind: "open-main" }
  | { kind: "stop-task"; taskId: string; subtaskId: string | null }
  | { kind: "close-terminal"; sessionId: string }
  | { kind: "pause" }
  | { kind: "resume" }
  | { kind: "install-update" }
  | { kind: "elevate"; agentId: string; forMs: number }
  | { kind: "end-elevation" }
  | { kind: "quit" };

export interface TrayMenuEntry {
  id: string;
  label: string;
  enabled: boolean;
  separator?: true;
  action?: TrayAction;
  /** A submenu (the entry itself then has no action). */
  submenu?: TrayMenuEntry[];
}

export interface TrayPending {
  id: string;
  agentId: string;
  commandText: string;
  /** The gate sees a danger in it (core/policy/risk.ts): the line is marked. */
  danger?: boolean;
}

/** A running agent task (executor/tasks `RunningTaskView`). */
export interface TrayTask {
  taskId: string;
  subtaskId: string | null;
  agent: string;
  workdir: string | null;
  /** Milliseconds since the epoch. */
  startedAt: number;
}

/** A terminal the backend opened here (executor/terminal `TerminalView`). */
export interface TrayTerminal {
  sessionId: string;
  folder: string;
  /** Milliseconds since the epoch. */
  openedAt: number;
}

/** An update the app knows about (update-controller.ts). */
export type TrayUpdate =
  | { kind: "available"; version: string }
  /** `blocker`: why it cannot be installed now (a waiting prompt, a running task), or null. */
  | { kind: "downloaded"; version: string; blocker: string | null };

export interface TrayInput {
  platform: NodeJS.Platform;
  /** The device connection, or null when this app runs without one. */
  connection: { state: string; backendUrl: string | null; lastError: string | null } | null;
  /** Oldest first. */
  pending: TrayPending[];
  /** The approvals file is invalid: every command is denied until it is fixed. */
  approvalsInvalid: boolean;
  /** Running agent tasks, oldest first (none when the app runs without a device). */
  tasks?: TrayTask[];
  /** Open terminals, oldest first: a terminal runs anything typed into it, so each is shown and closable. */
  terminals?: TrayTerminal[];
  /** Now, in milliseconds since the epoch (for elapsed times). */
  now?: number;
  /** The home folder, written as `~` in workdirs. */
  home?: string;
  update?: TrayUpdate | null;
  /** Elevated mode still running (`*` = every agent); absent or empty when none. */
  elevated?: { agentId: string; until: number }[];
}

export interface TrayState {
  icon: TrayIcon;
  /** File name under assets/tray. */
  iconFile: string;
  /** macOS menu bar text next to the icon (the pending count), "" for none. */
  title: string;
  tooltip: string;
  menu: TrayMenuEntry[];
}

const MENU_COMMAND_CHARS = 72;

function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

/**
 * A command on one line in at most `max` characters, keeping its head and its tail (`curl … | sh`): the
 * end of a command is often what matters, so it is never the part cut away.
 */
export function headAndTail(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  if (oneLine.length <= max) return oneLine;
  const tail = Math.floor((max - 3) / 3);
  const head = max - 3 - tail;
  return `${oneLine.slice(0, head).trimEnd()} … ${oneLine.slice(oneLine.length - tail).trimStart()}`;
}

/** `42 s`, `3 min`, `2 h 5 min`. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

function shownWorkdir(dir: string | null, home: string | undefined): string {
  if (!dir) return "no folder yet";
  if (home && (dir === home || dir.startsWith(`${home}/`))) return `~${dir.slice(home.length)}`;
  return dir;
}

/** One menu line per running task: `Stop task 42 — claude-code, 3 min — ~/Projects/foo`. */
export function taskMenuEntries(tasks: TrayTask[], now: number, home?: string): TrayMenuEntry[] {
  if (tasks.length === 0) return [];
  const entries: TrayMenuEntry[] = [
    {
      id: "tasks-header",
      label: tasks.length === 1 ? "1 task running" : `${tasks.length} tasks running`,
      enabled: false,
    },
  ];
  for (const task of tasks) {
    const label = `Stop task ${task.taskId} — ${task.agent}, ${elapsedText(now - task.startedAt)} — ${shownWorkdir(task.workdir, home)}`;
    entries.push({
      id: `task:${task.taskId}:${task.subtaskId ?? ""}`,
      label: shorten(label, 90),
      enabled: true,
      action: { kind: "stop-task", taskId: task.taskId, subtaskId: task.subtaskId },
    });
  }
  return entries;
}

/** One menu line per open terminal: `Close terminal — ~/Projects/app, 3 min`. */
export function terminalMenuEntries(terminals: TrayTerminal[], now: number, home?: string): TrayMenuEntry[] {
  if (terminals.length === 0) return [];
  const entries: TrayMenuEntry[] = [
    {
      id: "terminals-header",
      label: terminals.length === 1 ? "1 terminal open" : `${terminals.length} terminals open`,
      enabled: false,
    },
  ];
  for (const terminal of terminals) {
    const label = `Close terminal — ${shownWorkdir(terminal.folder, home)}, ${elapsedText(now - terminal.openedAt)}`;
    entries.push({
      id: `terminal:${terminal.sessionId}`,
      label: shorten(label, 90),
      enabled: true,
      action: { kind: "close-terminal", sessionId: terminal.sessionId },
    });
  }
  return entries;
}

function host(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The one-line connection status shown in the tooltip and at the top of the menu. */
export function connectionLine(connection: TrayInput["connection"]): string {
  if (!connection) return "Approvals only (no backend connection)";
  const where = host(connection.backendUrl);
  switch (connection.state) {
    case "registered":
      return where ? `Connected to ${where}` : "Connected";
    case "connecting":
      return where ? `Connecting to ${where}…` : "Connecting…";
    case "offline":
      return "Offline — retrying";
    case "sign-in-required":
      return "Sign-in required";
    case "paused":
      return "Paused";
    default:
      return "Not set up";
  }
}

export function trayIcon(input: TrayInput): TrayIcon {
  const attention =
    input.pending.length > 0 || input.approvalsInvalid || input.connection?.state === "sign-in-required";
  // Elevated mode is what matters most about this machine while it lasts: it shows in every state.
  if (elevatedNow(input).length > 0) return attention ? "elevated-attention" : "elevated";
  if (attention) return "attention";
  if (!input.connection || input.connection.state === "registered") return "connected";
  return "offline";
}

/** The elevations still running at `input.now`. */
function elevatedNow(input: TrayInput): NonNullable<TrayInput["elevated"]> {
  const now = input.now ?? Date.now();
  return (input.elevated ?? []).filter((e) => e.until > now);
}

/**
 * The tooltip's elevated-mode words: who runs everything without asking and for how long
 * ("⚠ Elevated: every agent runs everything without asking, 14 min left"), "" when nothing is elevated.
 */
export function elevationTooltip(input: TrayInput): string {
  const now = input.now ?? Date.now();
  const running = elevatedNow(input);
  if (running.length === 0) return "";
  const who = running.map((e) => `${elevationWho(e.agentId)} (${elapsedText(e.until - now)} left)`);
  return `⚠ Elevated: ${who.join(", ")} ${running.length === 1 ? "runs" : "run"} everything without asking`;
}

/**
 * macOS uses template images (the system tints them, so colour cannot say "offline": its offline template
 * is the connected one faded, as menu bar items show "not working"); others a coloured icon.
 */
export function trayIconFile(icon: TrayIcon, platform: NodeJS.Platform): string {
  if (platform === "darwin") {
    if (icon === "attention") return "trayAttentionTemplate.png";
    if (icon === "elevated") return "trayElevatedTemplate.png";
    if (icon === "elevated-attention") return "trayElevatedAttentionTemplate.png";
    return icon === "offline" ? "trayOfflineTemplate.png" : "trayTemplate.png";
  }
  return `tray-${icon}.${platform === "win32" ? "ico" : "png"}`;
}

/** "Restart to update" — disabled, with the reason, while a prompt waits or a task runs. */
export function updateMenuEntries(update: TrayUpdate | null): TrayMenuEntry[] {
  if (!update) return [];
  if (update.kind === "available") {
    return [{ id: "update", label: `Gatehouse ${update.version} is available`, enabled: false }];
  }
  return [
    update.blocker
      ? {
          id: "update",
          label: `Update to ${update.version} once nothing waits (${update.blocker})`,
          enabled: false,
        }
      : {
          id: "update",
          label: `Restart to update to ${update.version}`,
          enabled: true,
          action: { kind: "install-update" },
        },
  ];
}

/**
 * The elevated-mode toggle: what runs elevated and for how long, with "end now"; else an "Elevate" submenu
 * with the same choices as the Status screen (src/shared/elevation-choices.ts).
 */
export function elevationMenuEntries(elevated: TrayInput["elevated"], now: number): TrayMenuEntry[] {
  if (!elevated?.length)
    return [
      {
        id: "elevate",
        label: "Elevate (runs everything without asking)",
        enabled: true,
        submenu: elevationChoices().map((choice) => ({
          id: choice.id,
          label: choice.label,
          enabled: true,
          action: { kind: "elevate", agentId: choice.agentId, forMs: choice.forMs },
        })),
      },
    ];
  const lines: TrayMenuEntry[] = elevated.map((e) => ({
    id: `elevated:${e.agentId}`,
    label: `⚠ Elevated: ${elevationWho(e.agentId)}, ${elapsedText(Math.max(0, e.until - now))} left`,
    enabled: false,
  }));
  lines.push({
    id: "end-elevation",
    label: "End elevated mode now",
    enabled: true,
    action: { kind: "end-elevation" },
  });
  return lines;
}

export function trayState(input: TrayInput): TrayState {
  const icon = trayIcon(input);
  const count = input.pending.length;
  const status = connectionLine(input.connection);
  const waiting = count === 0 ? "" : count === 1 ? "1 approval waiting" : `${count} approvals waiting`;
  // Elevated mode first: Windows cuts a tooltip at 127 characters.
  const tooltip = [
    "Gatehouse",
    elevationTooltip(input),
    status,
    waiting,
    input.approvalsInvalid ? "approvals file invalid" : "",
  ]
    .filter(Boolean)
    .join(" — ");

  const menu: TrayMenuEntry[] = [{ id: "status", label: status, enabled: false }];
  if (input.connection?.lastError && input.connection.state !== "registered") {
    menu.push({
      id: "last-error",
      label: shorten(`Last failure: ${input.connection.lastError}`, 80),
      enabled: false,
    });
  }
  if (input.approvalsInvalid) {
    menu.push({
      id: "approvals-invalid",
      label: "The approvals file is invalid: every command is denied",
      enabled: false,
    });
  }
  menu.push({ id: "sep-1", label: "", enabled: false, separator: true });
  if (count === 0) {
    menu.push({ id: "no-pending", label: "No approvals waiting", enabled: false });
  } else {
    menu.push({ id: "pending-header", label: waiting, enabled: false });
    for (const prompt of input.pending) {
      menu.push({
        id: `pending:${prompt.id}`,
        label: `${prompt.danger ? "⚠ " : ""}${headAndTail(prompt.commandText, MENU_COMMAND_CHARS)} — ${prompt.agentId}`,
        enabled: true,
        action: { kind: "open-approval", id: prompt.id },
      });
    }
  }
  const tasks = taskMenuEntries(input.tasks ?? [], input.now ?? Date.now(), input.home);
  if (tasks.length > 0) {
    menu.push({ id: "sep-tasks", label: "", enabled: false, separator: true });
    menu.push(...tasks);
  }
  const terminals = terminalMenuEntries(input.terminals ?? [], input.now ?? Date.now(), input.home);
  if (terminals.length > 0) {
    menu.push({ id: "sep-terminals", label: "", enabled: false, separator: true });
    menu.push(...terminals);
  }
  menu.push({ id: "sep-2", label: "", enabled: false, separator: true });
  menu.push(...elevationMenuEntries(input.elevated, input.now ?? Date.now()));
  menu.push(...updateMenuEntries(input.update ?? null));
  menu.push({ id: "open-main", label: "Open Gatehouse…", enabled: true, action: { kind: "open-main" } });
  if (input.connection) {
    const paused = input.connection.state === "paused";
    menu.push({
      id: paused ? "resume" : "pause",
      label: paused ? "Resume device" : "Pause device",
      enabled: true,
      action: { kind: paused ? "resume" : "pause" },
    });
  }
  menu.push({ id: "sep-3", label: "", enabled: false, separator: true });
  menu.push({ id: "quit", label: "Quit Gatehouse", enabled: true, action: { kind: "quit" } });

  return {
    icon,
    iconFile: trayIconFile(icon, input.platform),
    title: input.platform === "darwin" && count > 0 ? String(count) : "",
    tooltip,
    menu,
  };
}
