// The socket token as the approvals file holds it right now. Each frame asks for it. The file's
// folder is watched (core/store/file-watch.ts): while nothing happened there, and at most for a
// second, the last answer stands without a filesystem call; otherwise a stat notices whether the file
// was replaced (atomic writes change its inode) or changed mode, and only then is it trust-checked and
// read again. A rotated token or a file that became untrusted takes effect as soon as the watch tells.
import fs from "node:fs";
import { ApprovalsFileSchema } from "../core/approvals/schema.js";
import type { Logger } from "../core/log.js";
import { parseJsonText, watchFile } from "../core/store/index.js";
import { checkTrustedFile } from "../core/io/trust.js";

export interface TokenSource {
  /** The current token, or null when the approvals file has never been readable. */
  current(): string | null;
  /** Stops watching the file (the server calls it when it closes). */
  close?(): void;
  /** The file was just written by this process: look at it for the next frame, before the watch tells. */
  invalidate?(): void;
}

export function approvalsFileTokenSource(file: string, logger: Logger): TokenSource {
  let token: string | null = null;
  let signature = "";
  const watch = watchFile(file);
  let written = false;
  return {
    close: () => watch.close(),
    invalidate: () => (written = true),
    current() {
      if (!watch.changed() && !written) return token;
      written = false;
      const stat = fs.statSync(file, { throwIfNoEntry: false, bigint: false });
      const next = stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : "missing";
      if (next === signature) return token;
      signature = next;
      if (!stat) {
        logger.warn("the approvals file is missing; keeping the last known socket token", { file });
        return token;
      }
      // A file another user could write holds no token of ours (and they could read the old one):
      // no token is valid until the file is the user's alone again. Every frame is bad_mac meanwhile;
      // clients refuse such a file before sending, and decisions are deny.
      const untrusted = checkTrustedFile(file);
      if (untrusted) {
        logger.warn("the approvals file cannot be trusted; the socket accepts no token until it is fixed", {
          file,
          problem: untrusted.message,
        });
        token = null;
        return token;
      }
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (error) {
        logger.warn("cannot read the approvals file; keeping the last known socket token", {
          file,
          error: (error as Error).message,
        });
        return token;
      }
      const parsed = parseJsonText(text, ApprovalsFileSchema);
      if (parsed.status !== "ok") {
        // Policy decisions already treat an invalid file as deny; the last good token stays valid
        // so clients get that answer instead of a mysterious bad_mac.
        logger.warn("the approvals file is invalid; keeping the last known socket token", { file });
        return token;
      }
      if (token !== null && token !== parsed.value.socket.token) logger.info("socket token changed");
      token = parsed.value.socket.token;
      logger.addSecret(token);
      return token;
    },
  };
}

/** A fixed token (tests, benchmarks). */
export function fixedTokenSource(token: string): TokenSource {
  return { current: () => token };
}
