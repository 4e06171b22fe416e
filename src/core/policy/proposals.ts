// What *allow always* would save (exec-policy.md "Deciding"): one entry per uncovered segment — the exact
// real path of its executable; for inline code, for shells and sudo/doas (never granted bare) and for the
// tools of the tool table (their options can run programs or write files), the real path with an exact,
// anchored argPattern. Unresolved executables, and segments whose arguments
// are only known at run time, get no proposal: nothing exact could be saved for them.
import { NEVER_BARE_GRANT, escapeGlob, patternExecutableName } from "../approvals/index.js";
import { grantsMoreThanItsName } from "./tool-table.js";
import type { ProposedEntry, Segment } from "./types.js";

export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The argPattern that matches exactly these arguments and nothing else. */
export function exactArgPattern(args: string[]): string {
  return `^${escapeRegExp(args.join(" "))}$`;
}

/** Inline code, shells and sudo, and every tool that runs programs or writes files by its options. */
function needsArgPattern(segment: Segment): boolean {
  if (segment.inlineCode) return true;
  const names = [patternExecutableName(segment.executable)];
  if (segment.resolvedPath) names.push(patternExecutableName(segment.resolvedPath));
  return names.some((n) => NEVER_BARE_GRANT.has(n) || grantsMoreThanItsName(n));
}

/** `exact`: segments only an exact argPattern may cover (a read of a protected folder, file-reads.ts). */
export function proposeEntries(
  segments: Segment[],
  uncovered: (segment: Segment, index: number) => boolean,
  exact: ReadonlySet<number | undefined> = new Set(),
): ProposedEntry[] {
  const proposals: ProposedEntry[] = [];
  const seen = new Set<string>();
  segments.forEach((segment, index) => {
    if (!uncovered(segment, index) || segment.resolvedPath === null) return;
    const pattern = escapeGlob(segment.resolvedPath.replace(/\\/g, "/"));
    let proposal: ProposedEntry;
    if (needsArgPattern(segment) || exact.has(index)) {
      if (segment.dynamicArgs) return;
      proposal = { pattern, argPattern: exactArgPattern(segment.argv.slice(1)), segment: index };
    } else {
      proposal = { pattern, segment: index };
    }
    const key = `${proposal.pattern}\0${proposal.argPattern ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    proposals.push(proposal);
  });
  return proposals;
}
