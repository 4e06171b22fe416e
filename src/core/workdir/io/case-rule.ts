// The letter-case rule of the volume a folder lives on, probed rather than assumed from the platform
// (workdir.md §2): macOS volumes are case-insensitive by default but need not be, Linux can mount
// case-insensitive ext4 (casefold) or vfat. One probe for every comparison that must follow the volume:
// containment in a root or in the task's folder, and the exemption of W from the rule for E.
import fs from "node:fs/promises";
import { rootRule, swapCase, type CompareRule, type Platform } from "../platform-path.js";

export type IdentityFn = (p: string) => Promise<{ dev: number | bigint; ino: number | bigint }>;

interface Probed {
  dev: number | bigint;
  ino: number | bigint;
  caseInsensitive: boolean;
}

/** Folders probed so far, by real path; an entry holds only while the folder keeps its identity. */
const probed = new Map<string, Probed>();
const MAX_PROBED = 256;

/**
 * True when the folder's real path with the case of its letters swapped leads to the same folder (same
 * device and inode): the folders along it then ignore case, and so must a comparison of names there.
 * Always true on Windows. False when the folder is missing or has no letter to swap (then case cannot
 * matter to a comparison with it). The answer is kept per folder for as long as the folder's identity
 * stays the same, so a probe costs one stat after the first.
 */
export async function probeCaseInsensitive(
  realpath: string,
  platform: Platform,
  identity: IdentityFn = (p) => fs.stat(p),
): Promise<boolean> {
  if (platform === "win32") return true;
  const swapped = swapCase(realpath);
  if (swapped === realpath) return false;
  let self;
  try {
    self = await identity(realpath);
  } catch {
    return false;
  }
  const known = probed.get(realpath);
  if (known && known.dev === self.dev && known.ino === self.ino) return known.caseInsensitive;
  let caseInsensitive: boolean;
  try {
    const other = await identity(swapped);
    caseInsensitive = other.dev === self.dev && other.ino === self.ino;
  } catch {
    caseInsensitive = false;
  }
  if (probed.size >= MAX_PROBED) probed.delete(probed.keys().next().value as string);
  probed.set(realpath, { dev: self.dev, ino: self.ino, caseInsensitive });
  return caseInsensitive;
}

/** The rule names under a folder are compared with: its probed case rule (always folded on Windows), NFC on macOS. */
export async function folderRule(
  realpath: string,
  platform: Platform,
  identity?: IdentityFn,
): Promise<CompareRule> {
  return rootRule(await probeCaseInsensitive(realpath, platform, identity), platform);
}
