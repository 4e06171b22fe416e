// Validation of an allowlist entry before it is saved: a bad glob or regex is rejected with the field
// and the reason, so the CLI, the editor and allow-always never write an entry that cannot match.
import { pathGlobProblem, patternProblem } from "./entry-pattern.js";
import { isMcpPattern } from "../../shared/mcp-entry.js";

export type NewAllowlistEntry = {
  pattern: string;
  argPattern?: string;
  cwd?: string;
  expiresAt?: number | null;
  usesLeft?: number | null;
  source?: string;
};

export type EntryField = "pattern" | "argPattern" | "cwd" | "expiresAt" | "usesLeft";

export type EntryValidation = { ok: true } | { ok: false; field: EntryField; reason: string };

const MAX_ARG_PATTERN = 4096;

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

export function validateEntry(entry: NewAllowlistEntry): EntryValidation {
  if (typeof entry.pattern !== "string")
    return { ok: false, field: "pattern", reason: "pattern is required" };
  const patternIssue = patternProblem(entry.pattern);
  if (patternIssue) return { ok: false, field: "pattern", reason: `pattern ${patternIssue}` };
  if (isMcpPattern(entry.pattern)) {
    // An MCP tool call has no arguments line and no working folder to test.
    if (entry.argPattern !== undefined)
      return { ok: false, field: "argPattern", reason: "an MCP entry takes no argPattern" };
    if (entry.cwd !== undefined) return { ok: false, field: "cwd", reason: "an MCP entry takes no cwd" };
  }

  if (entry.argPattern !== undefined) {
    if (typeof entry.argPattern !== "string") {
      return { ok: false, field: "argPattern", reason: "argPattern must be a string" };
    }
    if (entry.argPattern.length > MAX_ARG_PATTERN) {
      return {
        ok: false,
        field: "argPattern",
        reason: `argPattern is longer than ${MAX_ARG_PATTERN} characters`,
      };
    }
    try {
      new RegExp(entry.argPattern);
    } catch (error) {
      return {
        ok: false,
        field: "argPattern",
        reason: `argPattern is not a valid regular expression (${(error as Error).message})`,
      };
    }
  }

  if (entry.cwd !== undefined) {
    if (typeof entry.cwd !== "string") return { ok: false, field: "cwd", reason: "cwd must be a string" };
    const cwdIssue = pathGlobProblem(entry.cwd);
    if (cwdIssue) return { ok: false, field: "cwd", reason: `cwd ${cwdIssue}` };
  }

  if (entry.expiresAt !== undefined && entry.expiresAt !== null && !isCount(entry.expiresAt)) {
    return {
      ok: false,
      field: "expiresAt",
      reason: "expiresAt must be a time in epoch milliseconds (or null for never)",
    };
  }
  if (entry.usesLeft !== undefined && entry.usesLeft !== null && !isCount(entry.usesLeft)) {
    return {
      ok: false,
      field: "usesLeft",
      reason: "usesLeft must be a whole number ≥ 0 (or null for unlimited)",
    };
  }
  return { ok: true };
}

export class AllowlistEntryError extends Error {
  constructor(
    readonly field: EntryField | "id" | "agentId",
    readonly reason: string,
  ) {
    super(reason);
    this.name = "AllowlistEntryError";
  }
}
