// The approvals file: schema, store, entry validation and the effective allowlist of an agent.
export * from "./schema.js";
export * from "./io/store.js";
export * from "./validate-entry.js";
export * from "./effective-allowlist.js";
export * from "./entry-pattern.js";
export * from "../../shared/mcp-entry.js";
/** Thrown by ApprovalsStore updates when the file on disk is invalid (it is left untouched). */
export { InvalidFileError } from "../store/index.js";
