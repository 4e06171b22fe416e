// The `device:heartbeat` payload (device-protocol.md §4). The backend rejects a whole heartbeat for
// one bad field, so every rule it checks is checked here first and a bad part is left out or nulled.
import { emptyReport } from "../core/capabilities/io/report.js";
import type { CapabilityReport, TaskSnapshot } from "./deps.js";

/** D1: the report of a fresh device, sent when the real one cannot be built (§5). */
export const EMPTY_CAPABILITY_REPORT: CapabilityReport = emptyReport();

export interface RuntimeCapacity {
  limit: number;
  active: number;
  active_task_ids: string[];
  queued: number;
}

export interface HeartbeatPayload {
  device_id: string;
  runtime_instance_id: string;
  executor_version: string;
  runtime_transfer_host: string;
  running_task_ids: string[];
  runtime_capacity: RuntimeCapacity | null;
  runtime_auth_files: { codex: { target_path: string; exists: boolean } };
  capabilities: CapabilityReport;
  /** Wegent's runtime features, with only what Gatehouse has (no managed worktrees). */
  runtime_features: { schemaVersion: 1 };
}

function compareDecimal(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Decimal-digit ids only (the backend reads integers), unique, sorted numerically. */
export function runningTaskIds(ids: readonly string[]): string[] {
  const digits = ids.map((id) => String(id).trim()).filter((id) => /^\d+$/.test(id));
  const unique = [...new Map(digits.map((id) => [BigInt(id).toString(), id])).keys()];
  return unique.sort(compareDecimal);
}

/** The capacity object, or null when it would break one of the backend's rules. */
export function runtimeCapacity(limit: number, tasks: TaskSnapshot): RuntimeCapacity | null {
  const ids = tasks.activeTaskIds;
  const capacity: RuntimeCapacity = {
    limit,
    active: ids.length,
    active_task_ids: [...ids],
    queued: tasks.queued,
  };
  const validIds =
    ids.every((id) => typeof id === "string" && id.length > 0 && id === id.trim()) &&
    new Set(ids).size === ids.length &&
    ids.length <= 20;
  const valid =
    Number.isInteger(limit) &&
    limit >= 1 &&
    limit <= 20 &&
    validIds &&
    capacity.active === ids.length &&
    Number.isInteger(tasks.queued) &&
    tasks.queued >= 0;
  return valid ? capacity : null;
}

/**
 * `runtime_features` of registration and heartbeats (Wegent's RuntimeFeatures): the schema version
 * alone, since Gatehouse has no managed-worktree runtime (advertising one would bring worktree RPCs).
 */
export const RUNTIME_FEATURES = { schemaVersion: 1 } as const;

export function buildHeartbeatPayload(input: {
  deviceId: string;
  runtimeInstanceId: string;
  executorVersion: string;
  transferHost: string;
  maxConcurrentTasks: number;
  tasks: TaskSnapshot;
  codexAuth: { targetPath: string; exists: boolean };
  capabilities: CapabilityReport;
}): HeartbeatPayload {
  return {
    device_id: input.deviceId,
    runtime_instance_id: input.runtimeInstanceId,
    executor_version: input.executorVersion.slice(0, 50),
    runtime_transfer_host: input.transferHost,
    running_task_ids: runningTaskIds(input.tasks.runningTaskIds),
    runtime_capacity: runtimeCapacity(input.maxConcurrentTasks, input.tasks),
    runtime_auth_files: {
      codex: { target_path: input.codexAuth.targetPath, exists: input.codexAuth.exists },
    },
    capabilities: { ...input.capabilities, full: true },
    runtime_features: { ...RUNTIME_FEATURES },
  };
}
