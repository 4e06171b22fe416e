// Deny with a reason (issue 32): what a person says when they deny a request goes to the agent (its hook's
// reason, which the model reads), the backend's command ack and the audit line. One rule for all of them:
// at most DENY_REASON_MAX characters of plain text on one line, nothing that could steer a terminal or
// reorder what is shown (control characters, bidirectional overrides), empty meaning none.

/** The longest reason kept, in UTF-16 code units (a few sentences). */
export const DENY_REASON_MAX = 500;

// C0 and C1 control characters (line breaks included: the reason is one line in every place it goes),
// and the bidirectional embedding, override and isolate characters.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/** The reason as it travels: unsafe characters become spaces, runs of spaces one, cut to the limit; null when empty. */
export function cleanDenyReason(text: string | undefined | null): string | null {
  if (typeof text !== "string") return null;
  const flat = text.replace(UNSAFE, " ").replace(/\s+/g, " ").trim();
  if (flat === "") return null;
  if (flat.length <= DENY_REASON_MAX) return flat;
  // Never cut a surrogate pair in half.
  const end = /[\ud800-\udbff]/.test(flat[DENY_REASON_MAX - 2] ?? "")
    ? DENY_REASON_MAX - 2
    : DENY_REASON_MAX - 1;
  return `${flat.slice(0, end)}…`;
}
