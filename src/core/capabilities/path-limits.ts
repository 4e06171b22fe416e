// File-system limits on the paths a sync will create, checked while planning (before anything on
// disk changes) so a name the file system cannot hold fails its item instead of half a sync.
import path from "node:path";

/** One folder or file name: 255 bytes on POSIX file systems, 255 UTF-16 units on NTFS. */
export const MAX_NAME_UNITS = 255;

/** A whole path: PATH_MAX minus its NUL on Linux (4096) and macOS (1024); Windows long paths. */
export function maxPathUnits(platform: NodeJS.Platform): number {
  if (platform === "win32") return 32_766;
  return platform === "darwin" ? 1023 : 4095;
}

/** Why `p` cannot be created on `platform`, in words without the path itself; null when it can. */
export function pathLengthProblem(p: string, platform: NodeJS.Platform = process.platform): string | null {
  const windows = platform === "win32";
  const units = (text: string) => (windows ? text.length : Buffer.byteLength(text, "utf8"));
  const unit = windows ? "characters" : "bytes";
  for (const name of p.split(windows ? /[\\/]/ : "/")) {
    if (units(name) > MAX_NAME_UNITS)
      return `${units(name)} ${unit} in one folder name, at most ${MAX_NAME_UNITS}`;
  }
  const max = maxPathUnits(platform);
  return units(p) > max ? `a path of ${units(p)} ${unit}, at most ${max}` : null;
}

/** The first problem among `paths`, or null. */
export function firstPathProblem(paths: Iterable<string>, platform?: NodeJS.Platform): string | null {
  for (const p of paths) {
    const problem = pathLengthProblem(path.normalize(p), platform);
    if (problem) return problem;
  }
  return null;
}
