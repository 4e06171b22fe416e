// The composition root (architecture.md "Process model"): builds every service for one home folder.
// The Electron main process and the headless runner (`gatehouse serve`) both start the app through
// here; nothing below this file assembles layers. Later additions (device connection, workdir,
// capabilities) get built here too.
import {
  createRequestHandlers,
  defaultCwdResolver,
  type ApprovalGate,
  type CwdResolver,
} from "./approval-server/handlers.js";
import { PromptBroker, type Presenter } from "./approval-server/broker.js";
import type { ServerLimits } from "./approval-server/limits.js";
import { ApprovalServer, type ListenResult } from "./approval-server/server.js";
import { socketAddress } from "./approval-server/socket-path.js";
import { approvalsFileTokenSource } from "./approval-server/token-source.js";
import { ApprovalsStore } from "./core/approvals/index.js";
import type { Logger } from "./core/log.js";
import type { AppPaths, Env } from "./core/paths.js";
import { explainCommand } from "./core/policy/index.js";
import { AuditLog } from "./executor/audit-log.js";
import { decideCommand, gateAndRun, type ExecEvent, type GateDeps } from "./executor/gate.js";

export interface ServicesOptions {
  env: Env;
  paths: AppPaths;
  logger: Logger;
  /** Who answers prompts besides the UI (which attaches later through `broker.attachUi()`): tty, ask-via, or none. */
  presenter?: Presenter | null;
  /** Where `exec.run` runs; the workdir resolver replaces the default (requested folder, else E/workspace). */
  cwdResolver?: CwdResolver;
  limits?: Partial<ServerLimits>;
  now?: () => number;
  onExecEvent?: (event: ExecEvent) => void;
}

export type StartResult =
  | { status: "listening"; address: string; warnings: string[] }
  | { status: "in-use"; message: string }
  | { status: "refused"; message: string };

export interface Services {
  paths: AppPaths;
  approvals: ApprovalsStore;
  audit: AuditLog;
  broker: PromptBroker;
  approvalServer: ApprovalServer;
  /** The gate's dependencies without a prompt function (callers add the broker's, or null). */
  gateDeps: Omit<GateDeps, "prompt">;
  /** Creates the approvals file on first run and listens on the approval socket. */
  start(): Promise<StartResult>;
  /** Stops listening (removing the socket) and withdraws pending prompts. */
  stop(): Promise<void>;
}

export function createServices(options: ServicesOptions): Services {
  const { paths, logger } = options;
  const now = options.now ?? Date.now;
  const approvals = new ApprovalsStore({
    path: paths.approvals,
    defaultSocketPath: paths.defaultSocket,
    now,
  });
  const audit = new AuditLog({ path: paths.audit });
  const broker = new PromptBroker({ now, maxPending: options.limits?.maxPendingPrompts ?? 32 });
  if (options.presenter) broker.attach(options.presenter);

  const gateDeps: Omit<GateDeps, "prompt"> = {
    approvals,
    audit,
    baseEnv: options.env,
    home: paths.home,
    now,
    logger: logger.child("gate"),
    ...(options.onExecEvent ? { onEvent: options.onExecEvent } : {}),
  };
  const gate: ApprovalGate = {
    explain: async (command, context) =>
      explainCommand(command, {
        ...context,
        env: options.env,
        home: paths.home,
        approvals: await approvals.load(),
        now: now(),
      }),
    decide: (request, prompt) => decideCommand(request, { ...gateDeps, prompt }),
    run: (request, prompt) => gateAndRun(request, { ...gateDeps, prompt }),
  };

  const approvalServer = new ApprovalServer({
    executorHome: paths.executorHome,
    tokens: approvalsFileTokenSource(paths.approvals, logger.child("socket")),
    handlers: createRequestHandlers({
      gate,
      broker,
      home: paths.home,
      defaultCwd: paths.defaultWorkspaceRoot,
      cwdResolver: options.cwdResolver ?? defaultCwdResolver(paths.defaultWorkspaceRoot, paths.home),
    }),
    logger: logger.child("socket"),
    ...(options.limits ? { limits: options.limits } : {}),
    now,
  });

  return {
    paths,
    approvals,
    audit,
    broker,
    approvalServer,
    gateDeps,
    async start() {
      const warnings: string[] = [];
      const state = await approvals.ensure();
      if (state.status === "invalid") {
        // Kept as it is; decisions behave as deny until it is fixed (exec-policy.md).
        warnings.push(`${state.error} Every command is denied until it is fixed.`);
      }
      // The socket's address is the approvals file's `socket.path` (E/exec-approvals.sock unless changed).
      const address = socketAddress(state.status === "ok" ? state.file.socket.path : undefined, paths);
      const result: ListenResult = await approvalServer.listen(address);
      if (result.status !== "listening") return result;
      for (const warning of warnings) logger.warn(warning);
      return { status: "listening", address: result.address, warnings };
    },
    async stop() {
      broker.close();
      await approvalServer.close();
    },
  };
}
