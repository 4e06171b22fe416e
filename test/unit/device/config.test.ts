import fs from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clampConcurrency, loadDeviceConfig, saveBackendUrl } from "../../../src/device/config.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
beforeEach(async () => {
  t = await makeTempHome();
});
afterEach(async () => {
  await t.cleanup();
});

const fixedBytes = (size: number) => Buffer.alloc(size, 0xab);

async function readFile(): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(t.paths.deviceConfig, "utf8")) as Record<string, unknown>;
}

describe("device-config.json", () => {
  it("a fresh home gets generated ids that are persisted, and a derived name", async () => {
    const result = await loadDeviceConfig({
      paths: t.paths,
      env: {},
      platform: "darwin",
      randomBytes: fixedBytes,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.deviceId).toBe(`device-${"ab".repeat(12)}`);
    expect(result.config.runtimeInstanceId).toBe(`runtime-${"ab".repeat(12)}`);
    expect(result.config.deviceName).toBe(`macOS-Device-${"ab".repeat(6)}`);
    expect(result.config.maxConcurrentTasks).toBe(5);
    expect(result.config.workspaceRoot).toBe(t.paths.defaultWorkspaceRoot);
    const file = await readFile();
    expect(file.device_id).toBe(result.config.deviceId);
    expect(file.runtime_instance_id).toBe(result.config.runtimeInstanceId);
    expect((await fs.stat(t.paths.deviceConfig)).mode & 0o777).toBe(0o600);

    const again = await loadDeviceConfig({ paths: t.paths, env: {}, platform: "linux" });
    expect(again.ok && again.config.deviceId).toBe(result.config.deviceId);
    expect(again.ok && again.config.deviceName).toBe(`Linux-Device-${"ab".repeat(6)}`);
  });

  it("unknown keys of the reference executor survive when ids are generated", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(
      t.paths.deviceConfig,
      JSON.stringify({
        mode: "local",
        device_id: "",
        extra: { keep: true },
        connection: { backend_url: "https://b", other: 1 },
      }),
    );
    await loadDeviceConfig({ paths: t.paths, env: {}, randomBytes: fixedBytes });
    const file = await readFile();
    expect(file.extra).toEqual({ keep: true });
    expect(file.connection).toEqual({ backend_url: "https://b", other: 1 });
    expect(file.device_id).toMatch(/^device-[0-9a-f]{24}$/);
  });

  it("environment overrides apply but are never written back", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    const stored = {
      device_id: "device-stored",
      runtime_instance_id: "runtime-stored",
      device_name: "Stored",
      connection: { backend_url: "https://stored", socket_url: "", auth_token: "" },
    };
    await fs.writeFile(t.paths.deviceConfig, JSON.stringify(stored));
    const result = await loadDeviceConfig({
      paths: t.paths,
      env: {
        WEGENT_BACKEND_URL: " https://env-backend ",
        WEGENT_SOCKET_URL: "wss://env-socket/x",
        DEVICE_ID: "device-env",
        DEVICE_NAME: "Env name",
        DEVICE_TYPE: "remote",
        LOCAL_WORKSPACE_ROOT: "~/ws",
      },
    });
    expect(result).toMatchObject({
      ok: true,
      config: {
        deviceId: "device-env",
        deviceName: "Env name",
        deviceType: "remote",
        backendUrl: "https://env-backend",
        socketUrl: "wss://env-socket/x",
        workspaceRoot: `${t.home}/ws`,
      },
    });
    expect(await readFile()).toEqual(stored);
  });

  it("empty environment values are ignored", async () => {
    const result = await loadDeviceConfig({
      paths: t.paths,
      env: { DEVICE_ID: "  ", WEGENT_BACKEND_URL: "" },
    });
    expect(result.ok && result.config.deviceId).toMatch(/^device-/);
    expect(result.ok && result.config.backendUrl).toBeNull();
  });

  it.each([
    [{ device_type: "laptop" }, "device_type must be one of local, app, cloud, remote"],
    [{ bind_shell: "bash" }, "bind_shell must be one of claudecode, openclaw"],
    [{ device_id: "d".repeat(101) }, "device_id must be 1–100 characters"],
    [{ device_name: "n".repeat(101) }, "device_name must be 1–100 characters"],
  ])("an invalid value %j is a configuration error naming the key", async (patch, message) => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(
      t.paths.deviceConfig,
      JSON.stringify({ device_id: "device-1", runtime_instance_id: "runtime-1", ...patch }),
    );
    const result = await loadDeviceConfig({ paths: t.paths, env: {} });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(message);
    expect(!result.ok && result.error).toContain(t.paths.deviceConfig);
  });

  it("a file that is not JSON is reported and left as it is", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(t.paths.deviceConfig, "{ not json");
    const result = await loadDeviceConfig({ paths: t.paths, env: {} });
    expect(result.ok).toBe(false);
    expect(await fs.readFile(t.paths.deviceConfig, "utf8")).toBe("{ not json");
  });

  it("max_concurrent_tasks is clamped to 1–20", () => {
    expect(clampConcurrency(0)).toBe(1);
    expect(clampConcurrency(99)).toBe(20);
    expect(clampConcurrency("7")).toBe(7);
    expect(clampConcurrency(null)).toBe(5);
    expect(clampConcurrency(3.9)).toBe(3);
  });

  it("saving the backend URL keeps every other key", async () => {
    await fs.mkdir(t.paths.executorHome, { recursive: true });
    await fs.writeFile(
      t.paths.deviceConfig,
      JSON.stringify({
        device_id: "device-1",
        custom: 1,
        connection: { auth_token: "old-token", socket_url: "" },
      }),
    );
    await saveBackendUrl(t.paths, "https://new.example.com");
    expect(await readFile()).toEqual({
      device_id: "device-1",
      custom: 1,
      connection: { auth_token: "old-token", socket_url: "", backend_url: "https://new.example.com" },
    });
  });
});
