// Ends a command together with everything it started. On POSIX the child is spawned `detached`, so
// it leads its own process group and one signal to `-pid` reaches every descendant that stayed in
// the group. On Windows `taskkill /T /F` walks the tree.
import { spawn } from "node:child_process";

/** Sends `signal` to the process group led by `pid`; false when no such group exists any more. */
export function signalProcessGroup(
  pid: number,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform === "win32") {
    if (signal === "SIGTERM" || signal === "SIGKILL") {
      const killer = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], {
        stdio: "ignore",
        windowsHide: true,
      });
      killer.on("error", () => undefined);
    }
    return true;
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    // EPERM: a member changed its credentials (setuid); signal what we still can reach.
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** Whether any process of the group led by `pid` is still alive (POSIX; always false on Windows). */
export function processGroupAlive(pid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === "win32") return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
