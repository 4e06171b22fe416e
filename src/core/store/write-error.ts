// The errors a write meets on a full disk or in a folder the user cannot write (issue 30 item 2), said
// as a person needs them: which file, which folder, what happened, what to do. Node's own message names
// a temp or lock file the person never heard of ("EACCES: permission denied, open '…/.x.gatehouse-…'").
// The error keeps Node's `code` (callers that look at it still can) and the original as `cause`.
import path from "node:path";

const FULL = new Set(["ENOSPC", "EDQUOT"]);
const READ_ONLY = new Set(["EACCES", "EPERM", "EROFS"]);

export class StoreWriteError extends Error {
  readonly code: string;

  constructor(
    readonly file: string,
    readonly folder: string,
    cause: NodeJS.ErrnoException,
    message: string,
  ) {
    super(message, { cause });
    this.name = "StoreWriteError";
    this.code = cause.code ?? "EIO";
  }
}

/**
 * `error` (met while writing `file`) as a StoreWriteError when it is a full disk or a folder that
 * cannot be written; any other error as it is. `action` says what failed ("save": an atomic write,
 * which leaves the old file as it was; "create the folder": a folder of Gatehouse's own).
 */
export function explainWriteError(error: unknown, file: string, action = "save"): unknown {
  if (error instanceof StoreWriteError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!code || (!FULL.has(code) && !READ_ONLY.has(code))) return error;
  const folder = path.dirname(file);
  const cause = error as NodeJS.ErrnoException;
  const kept = action === "save" ? `${file} was left as it was.` : "nothing was changed.";
  if (FULL.has(code))
    return new StoreWriteError(
      file,
      folder,
      cause,
      `Could not ${action} ${file}: ${code === "EDQUOT" ? "the disk quota is used up" : "no space left on the disk"} that holds ${folder}. ` +
        `Free some space there and try again; ${kept}`,
    );
  const why = code === "EROFS" ? "its file system is mounted read-only" : "this user may not write in it";
  return new StoreWriteError(
    file,
    folder,
    cause,
    `Could not ${action} ${file}: the folder ${folder} is read-only (${why}). ` +
      `Make it writable for your user (chmod u+w ${folder}${code === "EROFS" ? ", or remount it read-write" : ""}) ` +
      `and try again; ${kept}`,
  );
}
