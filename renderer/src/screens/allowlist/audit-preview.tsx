// The audit preview of an edited entry (ui.md "Allowlist editor"): which past commands it would have
// covered, asked again from main once typing pauses.
import type { AuditPreview as Preview, EntryInput } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { useSettledAnswer } from "../../components/use-settled.js";
import { relativeTime } from "../../words.js";

/** How many covered commands are listed; the rest are counted. */
const SHOWN = 20;

/** The preview of `entry` (null: nothing to preview) in `agentId`'s list, replacing entry `replaceId`. */
export function useAuditPreview(
  entry: EntryInput | null,
  agentId: string,
  replaceId?: string,
): Preview | null {
  const request =
    entry && entry.pattern.trim() !== "" ? { agentId, entry, ...(replaceId ? { replaceId } : {}) } : null;
  return useSettledAnswer(
    request,
    async (r) => {
      const result = await call("allowlist.preview", r);
      return result.ok ? result.preview : null;
    },
    { pauseMs: 120 },
  ).answer;
}

export function AuditPreviewList(props: { preview: Preview | null }) {
  const { preview } = props;
  return (
    <div className="preview" aria-live="polite">
      <h4>Past commands this entry would have covered</h4>
      {preview === null ? (
        <p className="muted">Type a valid pattern to see which past commands it covers.</p>
      ) : preview.covered.length === 0 ? (
        <p className="muted">None of the last {preview.scanned} distinct commands.</p>
      ) : (
        <ul className="preview-list">
          {preview.covered.slice(0, SHOWN).map((c, i) => (
            <li key={i}>
              <span className="mono selectable">{c.command}</span>{" "}
              <span className="muted">
                {relativeTime(c.ts)} ·{" "}
                {c.coverage === "all" ? "would run without asking" : "part of it covered"}
              </span>
            </li>
          ))}
          {preview.covered.length > SHOWN ? (
            <li className="muted">and {preview.covered.length - SHOWN} more</li>
          ) : null}
        </ul>
      )}
    </div>
  );
}
