// A small, named fake of electron-updater's `autoUpdater` (the members src/electron/update-controller.ts
// uses): records the settings it was given, the checks and installs asked for, and lets a test fire
// "update-available" / "update-downloaded" / "error" as the real one would.
import type { UpdaterLike } from "../../../src/electron/update-controller.js";

export class FakeUpdater implements UpdaterLike {
  autoDownload = true;
  autoInstallOnAppQuit = true;
  allowDowngrade = true;
  allowPrerelease = true;
  checks = 0;
  installs: Array<{ isSilent?: boolean; isForceRunAfter?: boolean }> = [];
  /** What happened, in order (installs record "install"). */
  readonly events: string[] = [];
  private readonly listeners = new Map<string, Array<(arg: never) => void>>();

  async checkForUpdates(): Promise<unknown> {
    this.checks++;
    return null;
  }
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void {
    this.installs.push({ isSilent, isForceRunAfter });
    this.events.push("install");
  }
  on(event: string, listener: (arg: never) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: "update-available" | "update-downloaded", info: { version: string }): void;
  emit(event: "error", error: Error): void;
  emit(event: string, arg: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) listener(arg as never);
  }
}
