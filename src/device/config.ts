// `E/device-config.json` (device-protocol.md §1): the same shape as the reference Wegent executor's, so
// both can share one E. Unknown keys survive every write; generated ids are persisted; environment
// overrides are applied on top and never written back; the token is never written here.
import { randomBytes as nodeRandomBytes } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { expandHome, type AppPaths, type Env } from "../core/paths.js";
import { readJsonFile, updateJsonFile } from "../core/store/index.js";

const optionalText = z.string().nullable().optional();

export const DeviceConfigFileSchema = z.looseObject({
  mode: optionalText,
  device_type: optionalText,
  bind_shell: optionalText,
  device_id: optionalText,
  runtime_instance_id: optionalText,
  device_name: optionalText,
  max_concurrent_tasks: z.union([z.number(), z.string()]).nullable().optional(),
  connection: z
    .looseObject({ backend_url: optionalText, socket_url: optionalText, auth_token: optionalText })
    .nullable()
    .optional(),
  local_workspace_root: optionalText,
});
export type DeviceConfigFile = z.infer<typeof DeviceConfigFileSchema>;

export const DEVICE_TYPES = ["local", "app", "cloud", "remote"] as const;
export const BIND_SHELLS = ["claudecode", "openclaw"] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export type BindShell = (typeof BIND_SHELLS)[number];

/** The configuration the app runs with: file + generated ids + environment overrides, validated. */
export interface DeviceConfig {
  file: string;
  deviceId: string;
  runtimeInstanceId: string;
  deviceName: string;
  deviceType: DeviceType;
  bindShell: BindShell;
  /** 1–20 (clamped). */
  maxConcurrentTasks: number;
  /** Trimmed; null when not set. */
  backendUrl: string | null;
  socketUrl: string | null;
  /** `connection.auth_token` of the file (read-only, last in the token lookup order). */
  fileAuthToken: string | null;
  /** LOCAL_WORKSPACE_ROOT, else `local_workspace_root`, else E/workspace. */
  workspaceRoot: string;
}

export type DeviceConfigResult =
  { ok: true; config: DeviceConfig } | { ok: false; file: string; error: string };

export interface LoadDeviceConfigOptions {
  paths: Pick<AppPaths, "deviceConfig" | "home" | "defaultWorkspaceRoot">;
  env: Env;
  platform?: NodeJS.Platform;
  randomBytes?: (size: number) => Buffer;
}

function text(value: string | null | undefined): string {
  return typeof value === "string" ? value.trim() : "";
}

function envText(env: Env, name: string): string {
  return text(env[name]);
}

export function platformLabel(platform: NodeJS.Platform): string {
  if (platform === "darwin") return "macOS";
  if (platform === "win32") return "Windows";
  return "Linux";
}

export function generateId(prefix: "device" | "runtime", randomBytes: (size: number) => Buffer): string {
  return `${prefix}-${randomBytes(12).toString("hex")}`;
}

export function clampConcurrency(value: unknown): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) return 5;
  return Math.min(20, Math.max(1, Math.trunc(n)));
}

function emptyFile(): DeviceConfigFile {
  return {
    mode: "local",
    device_type: "local",
    bind_shell: "claudecode",
    device_id: "",
    runtime_instance_id: "",
    device_name: "",
    max_concurrent_tasks: 5,
    connection: { backend_url: "", socket_url: "", auth_token: "" },
    local_workspace_root: "",
  };
}

/**
 * Loads the file, persists generated ids when they are empty, applies the environment and checks the
 * result. A violation is a value (`ok: false`) naming the file and the key: the caller shows it and
 * makes no connection.
 */
export async function loadDeviceConfig(options: LoadDeviceConfigOptions): Promise<DeviceConfigResult> {
  const file = options.paths.deviceConfig;
  const randomBytes = options.randomBytes ?? nodeRandomBytes;
  const fail = (error: string): DeviceConfigResult => ({
    ok: false,
    file,
    error: `Invalid device configuration ${file}: ${error}`,
  });

  const current = await readJsonFile(file, DeviceConfigFileSchema);
  if (current.status === "invalid") return fail(current.error);
  let stored = current.status === "ok" ? current.value : undefined;
  if (!stored || !text(stored.device_id) || !text(stored.runtime_instance_id)) {
    // Under the lock: another process may be generating the same ids right now; the first one wins.
    try {
      stored = await updateJsonFile(file, DeviceConfigFileSchema, emptyFile, (latest) => {
        if (text(latest.device_id) && text(latest.runtime_instance_id))
          return { value: latest, result: latest };
        const next: DeviceConfigFile = {
          ...latest,
          device_id: text(latest.device_id) || generateId("device", randomBytes),
          runtime_instance_id: text(latest.runtime_instance_id) || generateId("runtime", randomBytes),
        };
        return { value: next, result: next };
      });
    } catch (error) {
      return fail((error as Error).message);
    }
  }
  return effectiveDeviceConfig(stored ?? emptyFile(), options);
}

/** Applies environment overrides and the validation rules of §1 to a stored file value. */
export function effectiveDeviceConfig(
  stored: DeviceConfigFile,
  options: Pick<LoadDeviceConfigOptions, "paths" | "env" | "platform">,
): DeviceConfigResult {
  const file = options.paths.deviceConfig;
  const env = options.env;
  const fail = (error: string): DeviceConfigResult => ({
    ok: false,
    file,
    error: `Invalid device configuration ${file}: ${error}`,
  });
  const deviceId = envText(env, "DEVICE_ID") || text(stored.device_id);
  const runtimeInstanceId = text(stored.runtime_instance_id);
  const platform = options.platform ?? process.platform;
  const deviceName =
    envText(env, "DEVICE_NAME") ||
    text(stored.device_name) ||
    `${platformLabel(platform)}-Device-${deviceId.slice(-12)}`;
  const deviceType = envText(env, "DEVICE_TYPE") || text(stored.device_type) || "local";
  const bindShell = text(stored.bind_shell) || "claudecode";

  if (deviceId.length < 1 || deviceId.length > 100) return fail("device_id must be 1–100 characters");
  if (deviceName.length > 100) return fail("device_name must be 1–100 characters");
  if (!(DEVICE_TYPES as readonly string[]).includes(deviceType)) {
    return fail(`device_type must be one of ${DEVICE_TYPES.join(", ")} (got "${deviceType}")`);
  }
  if (!(BIND_SHELLS as readonly string[]).includes(bindShell)) {
    return fail(`bind_shell must be one of ${BIND_SHELLS.join(", ")} (got "${bindShell}")`);
  }

  const connection = stored.connection ?? {};
  const backendUrl = envText(env, "WEGENT_BACKEND_URL") || text(connection.backend_url);
  const socketUrl = envText(env, "WEGENT_SOCKET_URL") || text(connection.socket_url);
  const workspaceText = envText(env, "LOCAL_WORKSPACE_ROOT") || text(stored.local_workspace_root);
  const workspaceRoot = workspaceText
    ? path.resolve(expandHome(workspaceText, options.paths.home))
    : options.paths.defaultWorkspaceRoot;

  return {
    ok: true,
    config: {
      file,
      deviceId,
      runtimeInstanceId,
      deviceName,
      deviceType: deviceType as DeviceType,
      bindShell: bindShell as BindShell,
      maxConcurrentTasks: clampConcurrency(stored.max_concurrent_tasks),
      backendUrl: backendUrl || null,
      socketUrl: socketUrl || null,
      fileAuthToken: text(connection.auth_token) || null,
      workspaceRoot,
    },
  };
}

/**
 * Reads the configuration without writing anything (status, logout): like `loadDeviceConfig`, but a
 * missing file or missing ids are reported as they are instead of being generated.
 */
export async function peekDeviceConfig(
  options: Pick<LoadDeviceConfigOptions, "paths" | "env" | "platform">,
): Promise<DeviceConfigResult | { ok: false; file: string; error: null; missing: "file" | "ids" }> {
  const file = options.paths.deviceConfig;
  const current = await readJsonFile(file, DeviceConfigFileSchema);
  if (current.status === "invalid") {
    return { ok: false, file, error: `Invalid device configuration ${file}: ${current.error}` };
  }
  if (current.status === "missing") return { ok: false, file, error: null, missing: "file" };
  const stored = current.value;
  if (!text(stored.device_id) && !text(options.env.DEVICE_ID))
    return { ok: false, file, error: null, missing: "ids" };
  return effectiveDeviceConfig(
    { ...stored, runtime_instance_id: text(stored.runtime_instance_id) || "(not generated yet)" },
    options,
  );
}

/** Saves `connection.backend_url` (`gatehouse login --backend`), keeping every other key. */
export async function saveBackendUrl(
  paths: Pick<AppPaths, "deviceConfig">,
  backendUrl: string,
): Promise<void> {
  await updateJsonFile(paths.deviceConfig, DeviceConfigFileSchema, emptyFile, (latest) => ({
    value: { ...latest, connection: { ...(latest.connection ?? {}), backend_url: backendUrl } },
    result: undefined,
  }));
}
