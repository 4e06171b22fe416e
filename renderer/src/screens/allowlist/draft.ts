// The entry editor's form state as typed (all text) and the entry it stands for: the expiry is a local
// date and time, uses left a whole number; anything else is refused with the field it is about.
import type { EntryInput, EntryProblem, EntryView } from "../../../../src/ipc/contract.js";
import { mcpPattern, parseMcpPattern } from "../../../../src/shared/mcp-entry.js";
import { entryOfPatterns, type EntryPatterns } from "../../components/entry-fields.js";

export interface Draft extends EntryPatterns {
  /** What the entry covers: a program (pattern, arguments, folder) or one tool of an MCP server. */
  covers: "program" | "mcp";
  server: string;
  tool: string;
  /** `datetime-local` text, empty: never expires. */
  expires: string;
  /** Empty: unlimited. */
  uses: string;
}

export const EMPTY_DRAFT: Draft = {
  covers: "program",
  pattern: "",
  argPattern: "",
  cwd: "",
  server: "",
  tool: "",
  expires: "",
  uses: "",
};

function toLocalInput(ms: number | null | undefined): string {
  if (!ms) return "";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function draftOf(view: EntryView | null): Draft {
  if (!view) return EMPTY_DRAFT;
  const e = view.entry;
  const mcp = parseMcpPattern(e.pattern);
  return {
    covers: mcp ? "mcp" : "program",
    server: mcp?.server ?? "",
    tool: mcp?.tool ?? "",
    pattern: e.pattern,
    argPattern: e.argPattern ?? "",
    cwd: e.cwd ?? "",
    expires: toLocalInput(e.expiresAt),
    uses: typeof e.usesLeft === "number" ? String(e.usesLeft) : "",
  };
}

/** The entry, or every limit field that is not a date or a count (main checks the rest). */
export type DraftParse = { ok: true; entry: EntryInput } | { ok: false; problems: EntryProblem[] };

/** The entry the draft's "what it covers" fields stand for (no limits). */
export function coveredOf(draft: Draft): EntryInput {
  return draft.covers === "mcp"
    ? { pattern: mcpPattern({ server: draft.server.trim(), tool: draft.tool.trim() }) }
    : entryOfPatterns(draft);
}

export function parseDraft(draft: Draft): DraftParse {
  const entry: EntryInput = coveredOf(draft);
  const problems: EntryProblem[] = [];
  if (draft.expires !== "") {
    const ms = new Date(draft.expires).getTime();
    if (Number.isFinite(ms)) entry.expiresAt = ms;
    else problems.push({ field: "expiresAt", reason: "not a date and time" });
  } else entry.expiresAt = null;
  if (draft.uses.trim() !== "") {
    const n = Number(draft.uses);
    if (Number.isInteger(n) && n >= 0) entry.usesLeft = n;
    else problems.push({ field: "usesLeft", reason: "uses left must be a whole number ≥ 0" });
  } else entry.usesLeft = null;
  return problems.length ? { ok: false, problems } : { ok: true, entry };
}
