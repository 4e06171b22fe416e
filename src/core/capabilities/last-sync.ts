// The ack of a sync (device-protocol.md §7.10) and the record of the last one, kept next to the
// manifest (`E/capabilities/last-sync.json`) so `gatehouse caps status` can show per-item results.
import path from "node:path";
import { z } from "zod";
import { readJsonFile, writeFileAtomic } from "../store/index.js";
import type { SyncMode } from "./payload.js";

export type CapabilityKind = "skill" | "plugin" | "mcp";

export type SyncItemResult = {
  id?: number;
  name: string;
  status: "synced" | "failed";
  error?: string;
};

export type SyncErrorEntry = {
  kind: CapabilityKind;
  id?: number;
  name: string;
  error: string;
};

export type SyncItemsAck = {
  success: boolean;
  skills: SyncItemResult[];
  plugins: SyncItemResult[];
  mcps: SyncItemResult[];
  errors: SyncErrorEntry[];
};

/** A hard error: nothing on disk changed and the revision did not move. */
export type SyncHardErrorAck = {
  success: false;
  error: string;
};

export type SyncAck = SyncItemsAck | SyncHardErrorAck;

export function isHardError(ack: SyncAck): ack is SyncHardErrorAck {
  return "error" in ack && !("skills" in ack);
}

const ItemResult = z.object({
  id: z.number().optional(),
  name: z.string(),
  status: z.enum(["synced", "failed"]),
  error: z.string().optional(),
});

export const LastSyncRecordSchema = z.object({
  finished_at: z.string(),
  mode: z.enum(["merge", "replace"]),
  revision: z.number(),
  success: z.boolean(),
  skills: z.array(ItemResult),
  plugins: z.array(ItemResult),
  mcps: z.array(ItemResult),
  errors: z.array(
    z.object({
      kind: z.enum(["skill", "plugin", "mcp"]),
      id: z.number().optional(),
      name: z.string(),
      error: z.string(),
    }),
  ),
});
export type LastSyncRecord = z.infer<typeof LastSyncRecordSchema>;

export function lastSyncFile(capabilitiesDir: string): string {
  return path.join(capabilitiesDir, "last-sync.json");
}

export function lastSyncRecord(
  ack: SyncItemsAck,
  mode: SyncMode,
  revision: number,
  finishedAt: string,
): LastSyncRecord {
  return { finished_at: finishedAt, mode, revision, ...ack };
}

export async function writeLastSync(capabilitiesDir: string, record: LastSyncRecord): Promise<void> {
  await writeFileAtomic(lastSyncFile(capabilitiesDir), `${JSON.stringify(record, null, 2)}\n`, {
    mode: 0o600,
    dirMode: 0o700,
  });
}

/** The last recorded sync, or null when none was recorded (or the file is unreadable). */
export async function readLastSync(capabilitiesDir: string): Promise<LastSyncRecord | null> {
  const read = await readJsonFile(lastSyncFile(capabilitiesDir), LastSyncRecordSchema);
  return read.status === "ok" ? read.value : null;
}
