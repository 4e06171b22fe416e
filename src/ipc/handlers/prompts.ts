// Pending approvals: the list (oldest first) and the person's decision. Edited allow-always entries
// are checked before anything is decided, so a bad edit is reported instead of silently running once.
import { allowAlwaysProblem, validateEntry } from "../../core/approvals/index.js";
import { cleanDenyReason } from "../../shared/deny-reason.js";
import type { ConfirmedEntry } from "../../shared/schemas/prompt.js";
import { promptView } from "../prompt-view.js";
import type { HandlerContext, Handlers } from "./types.js";

export function promptsHandlers(ctx: HandlerContext): Pick<Handlers, "prompts.list" | "prompts.decide"> {
  const { broker } = ctx.services;
  return {
    "prompts.list": async () => ({
      prompts: broker.list().map((p) => promptView(p, ctx.services.paths.home)),
    }),

    "prompts.decide": async ({ id, decision, entries, reason }) => {
      const pending = broker.list().find((p) => p.id === id);
      if (!pending) {
        return {
          ok: false,
          reason: "This request is no longer waiting: it was decided elsewhere or timed out.",
        };
      }
      const withheld = pending.explanation.allowAlwaysWithheld;
      if (decision === "allow-always" && withheld !== undefined)
        return {
          ok: false,
          reason: `Allow always is not offered for this request: it ${withheld}. Choose Allow once or Deny.`,
        };
      let confirmed: ConfirmedEntry[] | undefined;
      if (decision === "allow-always") {
        confirmed = entries
          ? entries.map((entry) => ({
              segment: entry.segment,
              pattern: entry.pattern.trim(),
              ...(entry.argPattern ? { argPattern: entry.argPattern } : {}),
              ...(entry.cwd?.trim() ? { cwd: entry.cwd.trim() } : {}),
              // The time limit counts from the decision on main's clock, not the renderer's.
              ...(entry.expiresInMinutes !== undefined
                ? { expiresAt: ctx.now() + entry.expiresInMinutes * 60_000 }
                : {}),
              ...(entry.usesLeft !== undefined ? { usesLeft: entry.usesLeft } : {}),
            }))
          : pending.explanation.proposedEntries;
        if (confirmed.length === 0)
          return { ok: false, reason: "There is no entry to save; choose Allow once." };
        for (const entry of confirmed) {
          const refused = allowAlwaysProblem(entry);
          if (refused) return { ok: false, reason: refused, segment: entry.segment };
          const checked = validateEntry(entry);
          if (!checked.ok) return { ok: false, reason: checked.reason, segment: entry.segment };
        }
      }
      const denyReason = decision === "deny" ? cleanDenyReason(reason) : null;
      const answered = broker.decide(id, {
        decision,
        ...(decision === "allow-always" && confirmed ? { entries: confirmed } : {}),
        ...(denyReason !== null ? { denyReason } : {}),
      });
      if (!answered) {
        return {
          ok: false,
          reason: "This request is no longer waiting: it was decided elsewhere or timed out.",
        };
      }
      return { ok: true };
    },
  };
}
