// Where the approval socket lives and how its place is made safe before listening
// (approval-protocol.md "Transport").
import { createHash } from "node:crypto";
// node:fs's `promises`, loaded on first use: the served hook never reads a file asynchronously (issue 12)
import { promises as fs } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expandHome } from "../core/paths.js";
import { checkTrustedFolder } from "../core/io/trust.js";

/** sun_path sizes: the longest socket path the kernel keeps whole. */
export function maxSocketPathBytes(platform: NodeJS.Platform = process.platform): number {
  return platform === "darwin" || platform === "freebsd" || platform === "openbsd" ? 104 : 108;
}

/** `\\.\pipe\gatehouse-<sha256(username + E) first 16 hex>`. */
export function windowsPipeName(executorHome: string, username = os.userInfo().username): string {
  const digest = createHash("sha256").update(`${username}${executorHome}`).digest("hex").slice(0, 16);
  return `\\\\.\\pipe\\gatehouse-${digest}`;
}

/**
 * The socket address for a home: `socket.path` from the approvals file (`~` expanded, a relative
 * path taken from E), or the named pipe on Windows.
 */
export function socketAddress(
  configuredPath: string | undefined,
  options: { home: string; executorHome: string; defaultSocket: string; platform?: NodeJS.Platform },
): string {
  const platform = options.platform ?? process.platform;
  if (platform === "win32") return windowsPipeName(options.executorHome);
  if (!configuredPath) return options.defaultSocket;
  return path.resolve(options.executorHome, expandHome(configuredPath, options.home));
}

export type SocketPlaceResult =
  | { status: "ready"; removedStale: boolean }
  | { status: "in-use"; message: string }
  | { status: "refused"; message: string };

/** Connects to a socket path: `live` when something accepts, `dead` when nobody listens. */
export function probeSocket(socketPath: string, timeoutMs = 1_000): Promise<"live" | "dead"> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const done = (result: "live" | "dead") => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    // A listener that accepts but is slow is still alive: treat a timeout as live.
    const timer = setTimeout(() => done("live"), timeoutMs);
    socket.once("connect", () => done("live"));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      done(error.code === "ECONNREFUSED" || error.code === "ENOENT" ? "dead" : "live"),
    );
  });
}

/**
 * Prepares `socketPath` for listening (POSIX): checks the length, creates a missing parent 0700,
 * refuses a parent another user can write to, and removes a stale socket nobody answers on.
 * Never removes anything but a dead socket.
 */
export async function prepareSocketPlace(
  socketPath: string,
  options: { executorHome: string; platform?: NodeJS.Platform; uid?: number },
): Promise<SocketPlaceResult> {
  const platform = options.platform ?? process.platform;
  if (platform === "win32") return { status: "ready", removedStale: false };
  const limit = maxSocketPathBytes(platform);
  const length = Buffer.byteLength(socketPath);
  if (length > limit) {
    return {
      status: "refused",
      message:
        `The approval socket path ${socketPath} is ${length} bytes long; this system allows at most ${limit}. ` +
        `Set a shorter "socket.path" in exec-approvals.json (or a shorter WEGENT_EXECUTOR_HOME).`,
    };
  }
  if (!path.isAbsolute(socketPath)) {
    return { status: "refused", message: `The approval socket path ${socketPath} is not absolute.` };
  }

  const parent = path.dirname(socketPath);
  const parentCheck = await ensurePrivateParent(parent, options.uid ?? process.getuid?.());
  if (parentCheck) return { status: "refused", message: parentCheck };

  let stat;
  try {
    stat = await fs.lstat(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "ready", removedStale: false };
    throw error;
  }
  if (stat.isSymbolicLink()) {
    return {
      status: "refused",
      message: `${socketPath} is a symbolic link, not a socket; remove it and start again.`,
    };
  }
  if (!stat.isSocket()) {
    const what = stat.isDirectory() ? "a folder" : stat.isFile() ? "a regular file" : "not a socket";
    return {
      status: "refused",
      message: `${socketPath} is ${what}, not a socket; move it away and start again.`,
    };
  }
  if ((await probeSocket(socketPath)) === "live") {
    return {
      status: "in-use",
      message: `Another Gatehouse already serves ${options.executorHome} (${socketPath}).`,
    };
  }
  await fs.rm(socketPath, { force: true });
  return { status: "ready", removedStale: true };
}

/**
 * Creates a missing parent 0700; returns an error message for a parent (or a folder above it) that
 * another user owns or can write to — the one local-trust rule (src/core/io/trust.ts).
 */
async function ensurePrivateParent(parent: string, uid: number | undefined): Promise<string | null> {
  const trust = { ...(uid !== undefined ? { uid } : {}) };
  const before = checkTrustedFolder(parent, trust);
  if (before) return socketFolderMessage(parent, before.message);
  try {
    await fs.mkdir(parent, { mode: 0o700 });
    await fs.chmod(parent, 0o700); // the umask may have narrowed or widened the create mode
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      await fs.mkdir(parent, { recursive: true, mode: 0o700 });
      await fs.chmod(parent, 0o700);
    } else if (code !== "EEXIST") {
      return `Cannot create the socket folder ${parent}: ${(error as Error).message}`;
    }
  }
  const stat = await fs.stat(parent);
  if (!stat.isDirectory()) return `The socket folder ${parent} is not a folder.`;
  const after = checkTrustedFolder(parent, trust);
  return after ? socketFolderMessage(parent, after.message) : null;
}

function socketFolderMessage(parent: string, problem: string): string {
  return `${problem} (The approval socket goes in ${parent}; choose a private folder of your own for "socket.path".)`;
}
