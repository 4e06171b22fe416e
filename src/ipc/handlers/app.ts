// Host actions the renderer may ask for: reveal or copy a path, open an http(s) link, pick a folder,
// open the main window. Main checks each before the host does anything.
import fs from "node:fs/promises";
import path from "node:path";
import { externalUrl } from "../external-url.js";
import type { HandlerContext, Handlers } from "./types.js";

type AppChannels =
  | "app.revealPath"
  | "app.copyText"
  | "app.openExternal"
  | "app.pickFolder"
  | "app.openMainWindow"
  | "app.platform";

export function appHandlers(ctx: HandlerContext): Pick<Handlers, AppChannels> {
  return {
    "app.revealPath": async ({ path: target }) => {
      if (!path.isAbsolute(target))
        return { ok: false, reason: `Only absolute paths can be shown (got "${target}").` };
      try {
        await fs.lstat(target);
      } catch {
        return { ok: false, reason: `${target} does not exist.` };
      }
      await ctx.host.revealPath(target);
      return { ok: true };
    },
    "app.copyText": async ({ text }) => {
      ctx.host.copyText(text);
      return { ok: true };
    },
    "app.openExternal": async ({ url }) => {
      const checked = externalUrl(url);
      if (!checked.ok) return { ok: false, reason: checked.reason };
      await ctx.host.openExternal(checked.url);
      return { ok: true };
    },
    "app.pickFolder": async ({ title }) => ({ path: await ctx.host.pickFolder(title ?? "Choose a folder") }),
    "app.platform": async () => ({ platform: ctx.services.platform ?? process.platform }),
    "app.openMainWindow": async ({ screen }) => {
      ctx.host.openMainWindow(screen);
      return { ok: true };
    },
  };
}
