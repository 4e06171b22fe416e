// The device's connection to the backend (device-protocol.md §4) as the device service reports it:
// the tray, the status screen and `E/status.json` all show this shape.
import { z } from "zod";

export const ConnectionStateNameSchema = z.enum([
  "unconfigured",
  "connecting",
  "registered",
  "offline",
  "sign-in-required",
  "paused",
]);
export type ConnectionStateName = z.infer<typeof ConnectionStateNameSchema>;

export const ConnectionStateSchema = z.object({
  state: ConnectionStateNameSchema,
  backendUrl: z.string().nullable(),
  deviceId: z.string().nullable(),
  deviceName: z.string().nullable(),
  lastError: z.string().nullable(),
  /** ISO 8601 of the last acknowledged heartbeat. */
  lastHeartbeatAt: z.string().nullable(),
  registeredAt: z.string().nullable(),
  /** When the next attempt starts (state `offline`). */
  nextRetryAt: z.string().nullable(),
});
export type ConnectionState = z.infer<typeof ConnectionStateSchema>;
