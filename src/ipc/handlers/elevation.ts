// Elevated mode from the app's window: start it for one agent or every agent, end it early. Only the
// app's own renderer reaches these (the router checks the sender); the approval socket has no such
// request because agents' hooks are its clients too, and an agent must never elevate itself.
import { endElevation, startElevation } from "../../executor/elevation.js";
import type { HandlerContext, Handlers } from "./types.js";

export function elevationHandlers(ctx: HandlerContext): Pick<Handlers, "elevation.start" | "elevation.end"> {
  const deps = () => ({ approvals: ctx.services.approvals, audit: ctx.services.audit, now: ctx.now });
  return {
    "elevation.start": async ({ agentId, forMs }) => {
      const state = await ctx.services.approvals.load();
      if (state.status !== "ok")
        return {
          ok: false,
          reason:
            state.status === "invalid"
              ? "The approvals file is invalid; fix it before elevating."
              : "No policy is chosen yet; choose one in Settings first.",
        };
      try {
        const elevation = await startElevation(deps(), { agentId: agentId ?? "*", forMs, by: "app" });
        ctx.logger.info("elevated mode started from the app", {
          agentId: elevation.agentId,
          until: elevation.until,
        });
        return { ok: true, elevation };
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    },
    "elevation.end": async ({ agentId }) => {
      const ended = await endElevation(deps(), { ...(agentId ? { agentId } : {}), by: "app" });
      ctx.logger.info("elevated mode ended from the app", { agents: ended });
      return { ended };
    },
  };
}
