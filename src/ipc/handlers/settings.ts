// Settings (ui.md "Status and activity"): backend URL, the token (written to the keychain, never read
// back to the renderer), launch at login, the policy preset, socket token rotation, the logs folder,
// and pausing the device.
import fs from "node:fs/promises";
import { AUTH_TOKEN_ACCOUNT } from "../../secrets/secret-store.js";
import { normaliseToken } from "../../secrets/auth-token.js";
import { emptySettings, SettingsFileSchema } from "../../core/settings.js";
import { readJsonFile, updateJsonFile } from "../../core/store/index.js";
import { checkBackendUrl } from "../../device/backend-url.js";
import { DeviceConfigFileSchema, saveBackendUrl } from "../../device/config.js";
import { presetList, presetOfDefaults } from "../../core/approvals/index.js";
import type { HandlerContext, Handlers } from "./types.js";

type SettingsChannels =
  | "settings.get"
  | "settings.setBackendUrl"
  | "settings.setToken"
  | "settings.clearToken"
  | "settings.setLaunchAtLogin"
  | "settings.setExecEvents"
  | "settings.applyPreset"
  | "settings.rotateSocketToken"
  | "settings.openLogs"
  | "device.setPaused";

export function settingsHandlers(ctx: HandlerContext): Pick<Handlers, SettingsChannels> {
  const s = ctx.services;
  const reconnect = () => {
    // Reconnecting can take a while (backoff); the answer to the renderer does not wait for it.
    void s.device?.tokenChanged().catch((error: unknown) => ctx.logger.warn("reconnect failed", { error }));
  };

  return {
    "settings.get": async () => {
      const [config, settings, approvals] = await Promise.all([
        readJsonFile(s.paths.deviceConfig, DeviceConfigFileSchema),
        readJsonFile(s.paths.settings, SettingsFileSchema),
        s.approvals.load(),
      ]);
      const fileUrl = config.status === "ok" ? config.value.connection?.backend_url?.trim() || null : null;
      let tokenStored = false;
      if (s.secrets) {
        const token = await s.secrets.get(AUTH_TOKEN_ACCOUNT).catch(() => null);
        ctx.logger.addSecret(token);
        tokenStored = Boolean(token);
      }
      const tokenFromEnv = Boolean(s.env.WEGENT_AUTH_TOKEN?.trim());
      return {
        backendUrl: fileUrl ?? s.device?.state().backendUrl ?? null,
        tokenStored,
        tokenLocation: tokenFromEnv ? "env" : s.secrets && tokenStored ? s.secrets.location() : null,
        tokenFromEnv,
        launchAtLogin: settings.status === "ok" ? settings.value.launchAtLogin === true : false,
        execEvents: settings.status === "ok" ? settings.value.device?.execEvents === true : false,
        launchAtLoginSupported: ctx.host.setLaunchAtLogin !== null,
        // The same preset Status shows (allowlist.get): an invalid file is in none.
        preset:
          approvals.status === "invalid"
            ? null
            : presetOfDefaults(approvals.status === "ok" ? approvals.file.defaults : undefined),
        presets: presetList(),
        logsDir: s.paths.logsDir,
        approvalsPath: s.paths.approvals,
        socketPath: s.socket.address(),
        deviceConfigPath: s.paths.deviceConfig,
        devicePaused: s.device?.state().state === "paused",
      };
    },

    "settings.setBackendUrl": async ({ url }) => {
      const checked = checkBackendUrl(url);
      if (!checked.ok) return { ok: false, reason: checked.error };
      try {
        await saveBackendUrl(s.paths, checked.url);
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
      reconnect();
      return { ok: true, url: checked.url };
    },

    "settings.setToken": async ({ token: raw }) => {
      // Registered before anything else can log it, raw and normalised.
      ctx.logger.addSecret(raw.trim());
      const token = normaliseToken(raw);
      ctx.logger.addSecret(token);
      if (!token) return { ok: false, reason: "Paste the backend token first." };
      if (!s.secrets) return { ok: false, reason: "No secret store is available in this app." };
      try {
        await s.secrets.set(AUTH_TOKEN_ACCOUNT, token);
      } catch (error) {
        return { ok: false, reason: `The token could not be saved: ${(error as Error).message}` };
      }
      reconnect();
      return { ok: true, location: s.secrets.location() };
    },

    "settings.clearToken": async () => {
      if (!s.secrets) return { removed: false };
      const removed = await s.secrets.delete(AUTH_TOKEN_ACCOUNT);
      if (removed) reconnect();
      return { removed };
    },

    "settings.setExecEvents": async ({ enabled }) => {
      try {
        await updateJsonFile(s.paths.settings, SettingsFileSchema, emptySettings, (current) => ({
          value: { ...current, device: { ...current.device, execEvents: enabled } },
          result: undefined,
        }));
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
      return { ok: true };
    },

    "settings.setLaunchAtLogin": async ({ enabled }) => {
      // Applied first: a login item (or Linux autostart entry) that cannot be written leaves the setting as it was.
      try {
        await ctx.host.setLaunchAtLogin?.(enabled);
      } catch (error) {
        return {
          ok: false,
          reason: `Launch at login could not be turned ${enabled ? "on" : "off"}: ${(error as Error).message}`,
        };
      }
      try {
        await updateJsonFile(s.paths.settings, SettingsFileSchema, emptySettings, (current) => ({
          value: { ...current, launchAtLogin: enabled },
          result: undefined,
        }));
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
      return { ok: true };
    },

    "settings.applyPreset": async ({ preset }) => {
      await s.approvals.applyPreset(preset);
      return { ok: true };
    },

    "settings.rotateSocketToken": async () => {
      await s.approvals.rotateToken();
      return { ok: true };
    },

    "settings.openLogs": async () => {
      await fs.mkdir(s.paths.logsDir, { recursive: true, mode: 0o700 });
      const problem = await ctx.host.openPath(s.paths.logsDir);
      return problem ? { ok: false, reason: problem } : { ok: true };
    },

    "device.setPaused": async ({ paused }) => {
      if (!s.device) return { ok: false, reason: "The device connection is not running in this app." };
      if (paused) await s.device.pause();
      else await s.device.resume();
      return { ok: true };
    },
  };
}
