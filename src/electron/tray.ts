// The tray's look and menu as pure functions of the app's state (architecture.md "Electron shell"):
// icon connected / offline / attention, the pending count in the title (macOS) and tooltip, and a menu
// listing pending approvals, the windows, pause/resume and quit. shell.ts turns this into Electron calls.

export type TrayIcon = "connected" | "offline" | "attention";

export type TrayAction =
  | { kind: "open-approval"; id: string }
  | { kind: "open-main" }
  | { kind: "pause" }
  | { kind: "resume" }
  | { kind: "quit" };

export interface TrayMenuEntry {
  id: string;
  label: string;
  enabled: boolean;
  separator?: true;
  action?: TrayAction;
}

export interface TrayPending {
  id: string;
  agentId: string;
  commandText: string;
}

export interface TrayInput {
  platform: NodeJS.Platform;
  /** The device connection, or null when this app runs without one. */
  connection: { state: string; backendUrl: string | null; lastError: string | null } | null;
  /** Oldest first. */
  pending: TrayPending[];
  /** The approvals file is invalid: every command is denied until it is fixed. */
  approvalsInvalid: boolean;
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

const MENU_COMMAND_CHARS = 60;

function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
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
  if (input.pending.length > 0 || input.approvalsInvalid) return "attention";
  if (input.connection?.state === "sign-in-required") return "attention";
  if (!input.connection || input.connection.state === "registered") return "connected";
  return "offline";
}

/** macOS uses template images (the system tints them; offline looks like connected there); others a coloured icon. */
export function trayIconFile(icon: TrayIcon, platform: NodeJS.Platform): string {
  if (platform === "darwin") return icon === "attention" ? "trayAttentionTemplate.png" : "trayTemplate.png";
  return `tray-${icon}.${platform === "win32" ? "ico" : "png"}`;
}

export function trayState(input: TrayInput): TrayState {
  const icon = trayIcon(input);
  const count = input.pending.length;
  const status = connectionLine(input.connection);
  const waiting = count === 0 ? "" : count === 1 ? "1 approval waiting" : `${count} approvals waiting`;
  const tooltip = ["Gatehouse", status, waiting, input.approvalsInvalid ? "approvals file invalid" : ""]
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
        label: `${shorten(prompt.commandText, MENU_COMMAND_CHARS)} — ${prompt.agentId}`,
        enabled: true,
        action: { kind: "open-approval", id: prompt.id },
      });
    }
  }
  menu.push({ id: "sep-2", label: "", enabled: false, separator: true });
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
