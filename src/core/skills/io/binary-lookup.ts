// `requires.bins` / `anyBins` lookup (skills.md §5.1): a regular file with execute permission on the
// PATH of the environment agent runs get. On Windows the PATHEXT extensions are tried and names are
// compared without regard to case. One lookup object lives for one catalogue build (its cache).
import fs from "node:fs/promises";
import { constants } from "node:fs";
import path from "node:path";
import { expandHome, type Env } from "../../paths.js";

export interface BinaryLookup {
  has(name: string): Promise<boolean>;
}

/** Reads a variable; on Windows names are case-insensitive (`Path`, `PATHEXT`). */
export function envValue(env: Env, name: string, platform: string): string | undefined {
  if (platform !== "win32") return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

export function createBinaryLookup(options: { env: Env; platform: string; home: string }): BinaryLookup {
  const { env, platform, home } = options;
  const windows = platform === "win32";
  const pathDirs = (envValue(env, "PATH", platform) ?? "").split(windows ? ";" : ":").filter((d) => d !== "");
  const pathExts = (envValue(env, "PATHEXT", platform) ?? ".COM;.EXE;.BAT;.CMD")
    .split(";")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.startsWith("."));
  const results = new Map<string, Promise<boolean>>();
  const listings = new Map<string, Promise<Map<string, string>>>();

  const isExecutableFile = async (file: string): Promise<boolean> => {
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) return false;
      if (windows) return true; // Windows has no execute bit; PATHEXT decides what runs
      await fs.access(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };

  /** Lower-cased name → real name of each entry of a folder (case-insensitive matching on Windows). */
  const listing = (dir: string): Promise<Map<string, string>> => {
    let pending = listings.get(dir);
    if (!pending) {
      pending = fs.readdir(dir).then(
        (names) => new Map(names.map((n) => [n.toLowerCase(), n] as const)),
        () => new Map<string, string>(),
      );
      listings.set(dir, pending);
    }
    return pending;
  };

  const candidates = (name: string): string[] => {
    if (!windows) return [name];
    const ext = path.extname(name).toLowerCase();
    const out = ext !== "" && pathExts.includes(ext) ? [name] : [];
    for (const e of pathExts) out.push(name + e);
    return out;
  };

  const findInDir = async (dir: string, name: string): Promise<boolean> => {
    if (!windows) return isExecutableFile(path.join(dir, name));
    const entries = await listing(dir);
    for (const candidate of candidates(name)) {
      const real = entries.get(candidate.toLowerCase());
      if (real !== undefined && (await isExecutableFile(path.join(dir, real)))) return true;
    }
    return false;
  };

  const lookup = async (name: string): Promise<boolean> => {
    if (name.trim() === "") return false;
    const hasSeparator = name.includes("/") || (windows && name.includes("\\"));
    if (hasSeparator) {
      const file = path.resolve(expandHome(name, home));
      return findInDir(path.dirname(file), path.basename(file));
    }
    for (const dir of pathDirs) if (await findInDir(dir, name)) return true;
    return false;
  };

  return {
    has(name: string): Promise<boolean> {
      let pending = results.get(name);
      if (!pending) {
        pending = lookup(name);
        results.set(name, pending);
      }
      return pending;
    },
  };
}
