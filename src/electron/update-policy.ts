// When the tray app may update itself (issue 17 "auto-update"), as pure functions. Off until the build
// names a feed (electron-builder `publish`, which writes `resources/app-update.yml` inside the signed
// app, so no local process can point it elsewhere). An update is installed only where its signature is
// checked before it runs: macOS (Squirrel.Mac requires the running app's code signature) and Windows
// when the build names its publisher (electron-updater compares the installer's Authenticode signer;
// without a publisher name it skips that check). Elsewhere — Linux packages, Windows without a
// publisher — the app only says that a new version exists. Never while a prompt waits or a task runs.
import { parse as parseYaml } from "yaml";
import { z } from "zod";

export const UpdateFeedSchema = z.looseObject({
  provider: z.string().min(1),
  url: z.string().optional(),
  publisherName: z.union([z.string(), z.array(z.string())]).nullish(),
});
export type UpdateFeed = z.infer<typeof UpdateFeedSchema>;

/** The feed in `app-update.yml`, or null (with why) when there is none or it cannot be read. */
export function parseUpdateFeed(text: string | null): { feed: UpdateFeed } | { feed: null; reason: string } {
  if (text === null)
    return { feed: null, reason: "no update feed is configured (electron-builder publish: null)" };
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    return { feed: null, reason: `app-update.yml is not YAML: ${(error as Error).message}` };
  }
  const parsed = UpdateFeedSchema.safeParse(value);
  return parsed.success
    ? { feed: parsed.data }
    : { feed: null, reason: "app-update.yml does not name a provider" };
}

export interface UpdatePolicyInput {
  platform: NodeJS.Platform;
  /** app.isPackaged: a development run never updates. */
  packaged: boolean;
  feed: UpdateFeed | null;
  /** Why there is no feed (from parseUpdateFeed). */
  noFeedReason?: string;
  /** electron-updater could be loaded. */
  updaterInstalled: boolean;
}

export type UpdateMode =
  | { mode: "off"; reason: string }
  /** Check and tell the person; never download or install. */
  | { mode: "notify"; reason: string }
  /** Download in the background; install when the person agrees and nothing waits. */
  | { mode: "install"; reason: string };

function publisherNames(feed: UpdateFeed): string[] {
  const names = feed.publisherName;
  return (Array.isArray(names) ? names : names ? [names] : []).filter((n) => n.trim() !== "");
}

export function updateMode(input: UpdatePolicyInput): UpdateMode {
  if (!input.packaged) return { mode: "off", reason: "a development run is not updated" };
  if (!input.feed) return { mode: "off", reason: input.noFeedReason ?? "no update feed is configured" };
  if (input.feed.url !== undefined) {
    let protocol: string;
    try {
      protocol = new URL(input.feed.url).protocol;
    } catch {
      return { mode: "off", reason: `the update feed URL ${JSON.stringify(input.feed.url)} is not a URL` };
    }
    if (protocol !== "https:") return { mode: "off", reason: "the update feed is not served over HTTPS" };
  }
  if (!input.updaterInstalled) return { mode: "off", reason: "electron-updater is not part of this build" };
  switch (input.platform) {
    case "darwin":
      return { mode: "install", reason: "Squirrel.Mac accepts only an update signed like this app" };
    case "win32":
      return publisherNames(input.feed).length > 0
        ? { mode: "install", reason: "the installer's signer must be the build's publisher" }
        : {
            mode: "notify",
            reason:
              "the build names no publisher (win.signtoolOptions.publisherName), so a signature could not be checked",
          };
    default:
      return { mode: "notify", reason: "Linux packages carry no signature the updater checks" };
  }
}

export interface BusyState {
  pendingPrompts: number;
  runningTasks: number;
}

/** Whether an update may restart the app now: never while a prompt waits or an agent task runs. */
export function installBlocker(busy: BusyState): string | null {
  const reasons: string[] = [];
  if (busy.pendingPrompts > 0)
    reasons.push(
      busy.pendingPrompts === 1 ? "an approval is waiting" : `${busy.pendingPrompts} approvals are waiting`,
    );
  if (busy.runningTasks > 0)
    reasons.push(busy.runningTasks === 1 ? "a task is running" : `${busy.runningTasks} tasks are running`);
  return reasons.length > 0 ? reasons.join(" and ") : null;
}

/** How often the app asks the feed (and once shortly after start). */
export const UPDATE_CHECK_INTERVAL_MS = 6 * 60 * 60 * 1000;
export const UPDATE_FIRST_CHECK_DELAY_MS = 60 * 1000;
