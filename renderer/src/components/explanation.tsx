// Why a command is decided the way it is: per segment the resolved executable and whether a rule
// covered it, then every raised flag in plain words (ui.md "Approval dialog", the editor's test box).
import type { Explanation } from "../../../src/ipc/contract.js";
import { FLAG_WORDS } from "../words.js";

export function SegmentList(props: { explanation: Explanation }) {
  const { segments, flagDetails } = props.explanation;
  if (segments.length === 0 && flagDetails.length === 0) return null;
  return (
    <div className="why">
      {segments.length > 0 ? (
        <ul className="segments" aria-label="Programs the command runs">
          {segments.map((segment, index) => {
            const covered = segment.matchedEntryId !== null || segment.builtin !== undefined;
            return (
              <li key={index} className={covered ? "segment covered" : "segment missed"}>
                <span className="segment-mark" aria-hidden="true">
                  {covered ? "✓" : "!"}
                </span>
                <span className="segment-body">
                  <span className="mono selectable">{segment.argv.join(" ") || segment.executable}</span>
                  <span className="segment-detail">
                    {segment.builtin ? (
                      <>{segment.builtin}</>
                    ) : segment.resolvedPath ? (
                      <>
                        runs <span className="mono">{segment.resolvedPath}</span>
                      </>
                    ) : (
                      <>not found: {segment.resolveError ?? "unknown"}</>
                    )}
                    {segment.wrapper ? " (starts the next program)" : ""}
                    {segment.context !== "top" ? ` · inside ${segment.context}` : ""}
                  </span>
                  <span className="segment-detail">
                    {segment.builtin
                      ? "Needs no allowlist entry: it runs no program."
                      : covered
                        ? `Covered by allowlist entry ${segment.matchedEntryId}${segment.matchedAgentId === "*" ? " (all agents)" : ""}.`
                        : `Not covered: ${segment.missReason ?? "no entry matches"}.`}
                  </span>
                  {segment.broadGrant ? (
                    <span className="segment-detail broad">Any arguments: {segment.broadGrant}.</span>
                  ) : null}
                </span>
              </li>
            );
          })}
        </ul>
      ) : null}
      {flagDetails.length > 0 ? (
        <ul className="flags" aria-label="Things that always need a person">
          {flagDetails.map((flag, index) => (
            <li key={index} className={flag.coveredBy ? "flag covered" : "flag"}>
              <strong>{FLAG_WORDS[flag.kind] ?? flag.kind}</strong>
              {flag.detail ? <span>: {flag.detail}</span> : null}
              {flag.coveredBy ? <span> (allowed by entry {flag.coveredBy})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
