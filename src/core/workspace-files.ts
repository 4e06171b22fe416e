// The workspace file commands' names and limits, shared by the device (which routes them) and the executor
// (which answers them): Wegent executor/src/local/workspace_files.rs, with the one change the wire forces:
// a chunk is smaller than Wegent's 1 MiB so that its ack, base64 and all,
// fits the backend's 1,000,000-byte message limit (device-protocol.md §6.5).

export const WORKSPACE_COMMAND_KEYS = [
  "workspace_tree",
  "workspace_read_text_file",
  "workspace_read_file_chunk",
  "workspace_write_text_file",
] as const;
export type WorkspaceCommandKey = (typeof WORKSPACE_COMMAND_KEYS)[number];

export function isWorkspaceCommandKey(key: unknown): key is WorkspaceCommandKey {
  return typeof key === "string" && (WORKSPACE_COMMAND_KEYS as readonly string[]).includes(key);
}

/** Read and write limit of a text file (Wegent: 256 KiB). */
export const MAX_TEXT_FILE_BYTES = 256 * 1024;
/** 512 KiB: 699,052 characters of base64, well inside the 980,000-byte ack budget (Wegent: 1 MiB). */
export const MAX_CHUNK_BYTES = 512 * 1024;
/** The backend's list of roots, as Wegent's executor reads it from the payload's `env`. */
export const WORKSPACE_ROOTS_ENV = "WEGENT_WORKSPACE_ROOTS";
/** A listing stops here (a folder of 100 000 files would not fit one message anyway). */
export const MAX_TREE_ENTRIES = 5_000;
