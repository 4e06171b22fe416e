// `E/status.json`: the connection state as the running app sees it, so another process
// (`gatehouse status`) can show it. Written atomically (0600) on every change, coalesced so a burst of
// changes costs one write at a time and the last state always lands. Redacted before it is written: a
// backend that echoes the token in an error never gets it onto the disk.
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../core/log.js";
import type { AppPaths } from "../core/paths.js";
import { readJsonFile, writeJsonFile, type JsonReadResult } from "../core/store/index.js";
import type { ConnectionState } from "./connection.js";

const nullableText = z.string().nullable();

export const ConnectionStateSchema = z.looseObject({
  state: z.enum(["unconfigured", "connecting", "registered", "offline", "sign-in-required", "paused"]),
  backendUrl: nullableText,
  deviceId: nullableText,
  deviceName: nullableText,
  lastError: nullableText,
  lastHeartbeatAt: nullableText,
  registeredAt: nullableText,
  nextRetryAt: nullableText,
});

export const StatusFileSchema = z.looseObject({
  version: z.literal(1),
  /** The process that writes the file; `running` is only true while it lives. */
  pid: z.number().int(),
  running: z.boolean(),
  updatedAt: z.string(),
  connection: ConnectionStateSchema,
});
export type StatusFile = z.infer<typeof StatusFileSchema>;

export function statusFilePath(paths: Pick<AppPaths, "executorHome">): string {
  return path.join(paths.executorHome, "status.json");
}

export function readStatusFile(paths: Pick<AppPaths, "executorHome">): Promise<JsonReadResult<StatusFile>> {
  return readJsonFile(statusFilePath(paths), StatusFileSchema);
}

export interface StatusWriter {
  write(state: ConnectionState, running?: boolean): void;
  /** Resolves once every write asked for so far is on disk. */
  flush(): Promise<void>;
}

export function createStatusWriter(options: {
  paths: Pick<AppPaths, "executorHome">;
  logger: Logger;
  now?: () => number;
  pid?: number;
}): StatusWriter {
  const file = statusFilePath(options.paths);
  const now = options.now ?? Date.now;
  let pending: StatusFile | null = null;
  let writing: Promise<void> | null = null;

  const drain = async () => {
    while (pending) {
      const value = pending;
      pending = null;
      try {
        await writeJsonFile(file, StatusFileSchema, value, { mode: 0o600 });
      } catch (error) {
        options.logger.warn(`Could not write ${file}: ${(error as Error).message}`);
      }
    }
    writing = null;
  };

  return {
    write(state, running = true) {
      pending = {
        version: 1,
        pid: options.pid ?? process.pid,
        running,
        updatedAt: new Date(now()).toISOString(),
        connection: options.logger.redact({ ...state }),
      };
      writing ??= drain();
    },
    async flush() {
      while (writing) await writing;
    },
  };
}
