// The two E/device-config.json keys the workdir resolver reads: `local_workspace_root` (W) and
// `device_id` (whose bindings are ours). Read-only and tolerant: the device module owns the file
// and reports its errors; here an unreadable file just means "not set".
import { z } from "zod";
import type { Env } from "../paths.js";
import { readJsonFile } from "../store/index.js";

const DeviceConfigFieldsSchema = z.looseObject({
  device_id: z.string().optional().catch(undefined),
  local_workspace_root: z.string().optional().catch(undefined),
});

export interface DeviceConfigFields {
  deviceId: string | null;
  localWorkspaceRoot: string | null;
}

export async function readDeviceConfigFields(file: string): Promise<DeviceConfigFields> {
  const result = await readJsonFile(file, DeviceConfigFieldsSchema);
  if (result.status !== "ok") return { deviceId: null, localWorkspaceRoot: null };
  return {
    deviceId: result.value.device_id?.trim() || null,
    localWorkspaceRoot: result.value.local_workspace_root?.trim() || null,
  };
}

/** This device's id: `DEVICE_ID`, else the configured `device_id`, else `local`. */
export function deviceIdFrom(env: Env, fields: DeviceConfigFields): string {
  return env.DEVICE_ID?.trim() || fields.deviceId || "local";
}
