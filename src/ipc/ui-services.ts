// What the IPC router needs from the app: narrow views of the real services (built by src/services.ts)
// and the few things only the host can do (Electron's shell, clipboard, dialogs, login items). The
// e2e tests pass the same real services and a host that records what it was asked to do.
import type { PromptBroker } from "../approval-server/broker.js";
import type { ApprovalsStore } from "../core/approvals/index.js";
import type { CapabilitySync } from "../core/capabilities/index.js";
import type { Logger } from "../core/log.js";
import type { AppPaths, Env } from "../core/paths.js";
import { explainCommand, ownFilesOf } from "../core/policy/index.js";
import type { Explanation } from "../core/policy/types.js";
import type { SkillCatalogue } from "../core/skills/index.js";
import type { WorkdirService } from "../core/workdir/index.js";
import type { ConnectionState } from "../device/connection.js";
import type { AuditLog } from "../executor/audit-log.js";
import type { SecretStore } from "../secrets/secret-store.js";
import type { OpenTerminal, RunningTask, Screen } from "./contract.js";

/** The device connection as the UI uses it. */
export interface UiDevice {
  state(): ConnectionState;
  onState(listener: (state: ConnectionState) => void): () => void;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** A new token or backend URL was saved: reconnect with it. */
  tokenChanged(): Promise<void>;
}

/** Running agent tasks (the task runner); absent until it is wired in. */
export interface UiTasks {
  list(): RunningTask[];
  onChange(listener: () => void): () => void;
  /** Stops a running or queued task (the backend is told it was cancelled); false when none matched. */
  stop?(taskId: string, subtaskId?: string | null): Promise<boolean>;
}

/** Terminals the backend opened (executor/terminal); absent without a device. */
export interface UiTerminals {
  list(): OpenTerminal[];
  onChange(listener: () => void): () => void;
  /** The person closes one; false when it was not open. */
  close(sessionId: string): boolean;
}

export interface UiServices {
  paths: AppPaths;
  env: Env;
  logger: Logger;
  approvals: ApprovalsStore;
  audit: Pick<AuditLog, "read" | "path" | "append">;
  broker: Pick<PromptBroker, "list" | "decide" | "on" | "size">;
  /** The policy explanation for a command (explainCommand with the app's env and home). */
  explain(command: { command: string }, context: { agentId: string; cwd: string }): Promise<Explanation>;
  socket: { address(): string; connections(): number; listening(): boolean };
  workdir: Pick<
    WorkdirService,
    | "roots"
    | "addRoot"
    | "removeRoot"
    | "bindings"
    | "removeBinding"
    | "repoBindings"
    | "addRepoBinding"
    | "removeRepoBinding"
    | "checkPath"
    | "onChange"
    | "warnings"
    | "workspaceRoot"
  > | null;
  skills: Pick<SkillCatalogue, "buildCatalogue" | "watch"> | null;
  capabilities: Pick<
    CapabilitySync,
    "onProgress" | "lastResult" | "lastPayload" | "rerunLast" | "cancelRunning"
  > | null;
  device: UiDevice | null;
  secrets: SecretStore | null;
  tasks?: UiTasks | null;
  terminals?: UiTerminals | null;
  now?: () => number;
  platform?: NodeJS.Platform;
}

/** What only the host (Electron main, or the e2e test) can do. */
export interface UiHost {
  /** Shows a file or folder in Finder/Explorer. */
  revealPath(path: string): Promise<void> | void;
  /** Opens a folder (the logs folder) in the file manager. */
  openPath(path: string): Promise<string | void> | string | void;
  copyText(text: string): void;
  /** Called only with a URL the router checked is http(s). */
  openExternal(url: string): Promise<void> | void;
  pickFolder(title: string): Promise<string | null>;
  /** Launch at login; null when the host cannot (then the setting is only stored). Throws when it fails. */
  setLaunchAtLogin: ((enabled: boolean) => Promise<void> | void) | null;
  openMainWindow(screen?: Screen): void;
}

/** The optional parts: the device side (null or absent when not built) and the socket's listening state. */
export interface UiOptionalParts {
  /** Whether the approval socket listens (from `start()`'s result). */
  listening?: () => boolean;
  workdir?: UiServices["workdir"];
  skills?: UiServices["skills"];
  capabilities?: UiServices["capabilities"];
  device?: UiDevice | null;
  secrets?: SecretStore | null;
  /** The task runner, once the composition root builds one. */
  tasks?: UiTasks | null;
  terminals?: UiTerminals | null;
}

/** The parts of the composition root's `Services` the adapter reads (structural, so the IPC layer never builds services). */
export interface CoreServicesLike extends UiOptionalParts {
  paths: AppPaths;
  approvals: ApprovalsStore;
  audit: AuditLog;
  broker: PromptBroker;
  approvalServer: { address: string | null; connectionCount: number };
  gateDeps: { baseEnv: Env; home: string; now: () => number };
}

/** What the services do not hold; each optional part, when given, replaces the services' own. */
export interface UiExtras extends UiOptionalParts {
  env: Env;
  logger: Logger;
  platform?: NodeJS.Platform;
}

/** The router's view of the app, from the composition root's services. */
export function uiServicesFrom(core: CoreServicesLike, extras: UiExtras): UiServices {
  return {
    paths: core.paths,
    env: extras.env,
    logger: extras.logger,
    approvals: core.approvals,
    audit: core.audit,
    broker: core.broker,
    explain: async (command, context) =>
      explainCommand(command, {
        ...context,
        env: core.gateDeps.baseEnv,
        home: core.gateDeps.home,
        ownFiles: ownFilesOf(core.paths),
        approvals: await core.approvals.load(),
        now: core.gateDeps.now(),
        ...(extras.platform ? { platform: extras.platform } : {}),
      }),
    socket: {
      // Known once the server listens; before that, where it will listen by default.
      address: () => core.approvalServer.address ?? core.paths.defaultSocket,
      connections: () => core.approvalServer.connectionCount,
      listening: extras.listening ?? core.listening ?? (() => false),
    },
    workdir: extras.workdir ?? core.workdir ?? null,
    skills: extras.skills ?? core.skills ?? null,
    capabilities: extras.capabilities ?? core.capabilities ?? null,
    device: extras.device ?? core.device ?? null,
    secrets: extras.secrets ?? core.secrets ?? null,
    tasks: extras.tasks ?? core.tasks ?? null,
    terminals: extras.terminals ?? core.terminals ?? null,
    now: core.gateDeps.now,
    ...(extras.platform ? { platform: extras.platform } : {}),
  };
}
