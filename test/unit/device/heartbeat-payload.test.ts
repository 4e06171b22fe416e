import { describe, expect, it } from "vitest";
import {
  buildHeartbeatPayload,
  EMPTY_CAPABILITY_REPORT,
  runningTaskIds,
  runtimeCapacity,
} from "../../../src/device/heartbeat-payload.js";

describe("heartbeat payload", () => {
  it("running_task_ids keeps decimal ids only, unique, sorted numerically", () => {
    expect(runningTaskIds(["20", "10", "abc", "9", "10", "-1", " 3 "])).toEqual(["3", "9", "10", "20"]);
  });

  it("runtime_capacity reports limit, active, ids and queue", () => {
    expect(runtimeCapacity(5, { runningTaskIds: [], activeTaskIds: ["10", "20"], queued: 1 })).toEqual({
      limit: 5,
      active: 2,
      active_task_ids: ["10", "20"],
      queued: 1,
    });
  });

  it.each([
    ["a duplicate id", 5, ["10", "10"], 0],
    ["an untrimmed id", 5, [" 10"], 0],
    ["an empty id", 5, [""], 0],
    ["a limit over 20", 21, [], 0],
    ["a negative queue", 5, [], -1],
    ["more than 20 ids", 20, Array.from({ length: 21 }, (_, i) => String(i + 1)), 0],
  ])("runtime_capacity is null rather than invalid: %s", (_what, limit, ids, queued) => {
    expect(runtimeCapacity(limit, { runningTaskIds: [], activeTaskIds: ids, queued })).toBeNull();
  });

  it("carries identity, version, Codex auth file and a full report", () => {
    const payload = buildHeartbeatPayload({
      deviceId: "device-1",
      runtimeInstanceId: "runtime-1",
      executorVersion: "0.1.0",
      transferHost: "192.168.1.23",
      maxConcurrentTasks: 5,
      tasks: { runningTaskIds: ["10"], activeTaskIds: ["10"], queued: 0 },
      codexAuth: { targetPath: "/home/a/.codex/auth.json", exists: false },
      capabilities: { ...EMPTY_CAPABILITY_REPORT, full: false },
    });
    expect(payload).toEqual({
      device_id: "device-1",
      runtime_instance_id: "runtime-1",
      executor_version: "0.1.0",
      runtime_transfer_host: "192.168.1.23",
      running_task_ids: ["10"],
      runtime_capacity: { limit: 5, active: 1, active_task_ids: ["10"], queued: 0 },
      runtime_auth_files: { codex: { target_path: "/home/a/.codex/auth.json", exists: false } },
      capabilities: { ...EMPTY_CAPABILITY_REPORT, full: true },
      runtime_features: { schemaVersion: 1 },
    });
  });
});
