// File system errors in the words Wegent's executor puts after its prefixes ("Failed to open file: …"):
// Rust's io::Error text, `No such file or directory (os error 2)`, so the web UI shows what it shows
// for Wegent's own executor.
import os from "node:os";

const DESCRIPTIONS: Record<string, string> = {
  ENOENT: "No such file or directory",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  ENOTDIR: "Not a directory",
  EISDIR: "Is a directory",
  ELOOP: "Too many levels of symbolic links",
  ENAMETOOLONG: "File name too long",
  EEXIST: "File exists",
  ENOSPC: "No space left on device",
  EROFS: "Read-only file system",
  EBUSY: "Device or resource busy",
  EINVAL: "Invalid argument",
};

export function osErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string") {
    const description = DESCRIPTIONS[code];
    const number = (os.constants.errno as Record<string, number | undefined>)[code];
    if (description) return number !== undefined ? `${description} (os error ${number})` : description;
  }
  return (error as Error | null)?.message ?? String(error);
}
