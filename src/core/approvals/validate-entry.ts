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

export type EntryProblem = { field: EntryField; reason: string };

/** The pattern's problems (one at most): a bad glob, or fields an MCP entry does not take. */
function patternProblems(entry: NewAllowlistEntry): EntryProblem[] {
  if (typeof entry.pattern !== "string") return [{ field: "pattern", reason: "pattern is required" }];
  const patternIssue = patternProblem(entry.pattern);
  if (patternIssue) return [{ field: "pattern", reason: `pattern ${patternIssue}` }];
  if (!isMcpPattern(entry.pattern)) return [];
  // An MCP tool call has no arguments line and no working folder to test.
  const out: EntryProblem[] = [];
  if (entry.argPattern !== undefined)
    out.push({ field: "argPattern", reason: "an MCP entry takes no argPattern" });
  if (entry.cwd !== undefined) out.push({ field: "cwd", reason: "an MCP entry takes no cwd" });
  return out;
}

function argPatternProblem(argPattern: unknown): string | null {
  if (typeof argPattern !== "string") return "argPattern must be a string";
  if (argPattern.length > MAX_ARG_PATTERN) return `argPattern is longer than ${MAX_ARG_PATTERN} characters`;
  try {
    new RegExp(argPattern);
  } catch (error) {
    return `argPattern is not a valid regular expression (${(error as Error).message})`;
  }
  return null;
}

/**
 * Every problem of the entry, at most one per field, in the order of the fields (the editor shows them
 * all at once, each next to its field).
 */
export function entryProblems(entry: NewAllowlistEntry): EntryProblem[] {
  const out = patternProblems(entry);
  const has = (field: EntryField) => out.some((p) => p.field === field);
  if (entry.argPattern !== undefined && !has("argPattern")) {
    const reason = argPatternProblem(entry.argPattern);
    if (reason) out.push({ field: "argPattern", reason });
  }
  if (entry.cwd !== undefined && !has("cwd")) {
    const cwdIssue = typeof entry.cwd === "string" ? pathGlobProblem(entry.cwd) : "must be a string";
    if (cwdIssue) out.push({ field: "cwd", reason: `cwd ${cwdIssue}` });
  }
  if (entry.expiresAt !== undefined && entry.expiresAt !== null && !isCount(entry.expiresAt)) {
    out.push({
      field: "expiresAt",
      reason: "expiresAt must be a time in epoch milliseconds (or null for never)",
    });
  }
  if (entry.usesLeft !== undefined && entry.usesLeft !== null && !isCount(entry.usesLeft)) {
    out.push({ field: "usesLeft", reason: "usesLeft must be a whole number ≥ 0 (or null for unlimited)" });
  }
  return out;
}

/** The first problem of the entry (what a save refuses it for), or ok. */
export function validateEntry(entry: NewAllowlistEntry): EntryValidation {
  const [first] = entryProblems(entry);
  return first ? { ok: false, ...first } : { ok: true };
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
