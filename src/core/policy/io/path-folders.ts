// What a PATH folder can hold, for the executable lookup (docs/decisions.md "Performance (issue 12 …)",
// "Resolving programs on PATH"). One `stat` of a folder answers for every name looked up in it during
// one explanation; a listing of the folder, kept across requests, answers "no such name" without a
// call per name, and is trusted only while the folder is provably unchanged since it was read:
// - same device, inode, mtime, ctime and size as when it was listed (a name created, removed or
//   renamed in or out changes mtime and ctime; a folder replaced, or a symlink on the way to it
//   retargeted, changes device or inode);
// - "racily clean" (git's rule for its index): the folder's mtime and ctime were more than
//   GRANULARITY_MS older than the wall clock before the listing was read, so a change made after the
//   listing cannot carry the same timestamps (coarse kernel clocks, 2 s FAT/1 s ext3 granularity);
// - the wall clock was not set back or forward since (its offset to the monotonic clock is unchanged);
// - Linux only, on local filesystems known to update directory times (never network or FUSE mounts),
//   and only for a case-sensitive folder (a probe at listing time: casefolded ext4/tmpfs and
//   `ascii-ci` XFS would find `GIT` for `git`), and only for plain printable-ASCII names.
// A name that IS in the listing is still `lstat`ed by the caller on every request: its mode (chmod +x),
// type and symlink target change without touching the folder.
import fs from "node:fs";
import { clockOffset, clockUnsetSince, settledBefore } from "../../io/racily-clean.js";

/** What one folder says about a name: absent for sure, or look (lstat the name, as before). */
export interface FolderView {
  /** False only when the folder proves the name absent (no such folder, or a trusted listing lacks it). */
  mayHold(name: string): boolean;
  /** A trusted listing answers for the folder (tests check that the attacks meet the listing). */
  readonly listed: boolean;
}

/** Folders larger than this are not listed (each request then looks names up one by one, as before). */
const MAX_ENTRIES = 50_000;
const MAX_LISTINGS = 256;

/**
 * statfs magic numbers of local Linux filesystems whose directories get a new mtime and ctime on every
 * entry change. ZFS (normalisation options) and every network or FUSE filesystem are absent on purpose.
 */
const LISTABLE_FILESYSTEMS = new Set<number>([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0xf2f52010, // f2fs
]);

/** A printable-ASCII name without `/`: looked up byte for byte on a case-sensitive folder. */
const PLAIN_NAME = /^[\x21-\x2e\x30-\x7e]+$/;

interface Listing {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  /** Null: the folder cannot be trusted as listed (case-insensitive, too large, unknown filesystem). */
  names: ReadonlySet<string> | null;
  clockOffset: number;
}

const listings = new Map<string, Listing>();

/** What each folder's last view found (a hint of which call to make first; never an answer). */
export type LastView = "absent" | "listed" | "look";
const lastViews = new Map<string, LastView>();

/**
 * What `viewFolder(dir)` found the last time this process asked, if it did. Only the order of calls
 * follows from it: a folder that was absent or listed is viewed before its first name is looked up
 * (one call answers for every name), and the view itself is made afresh.
 */
export function lastView(dir: string): LastView | undefined {
  return lastViews.get(dir);
}

function remember(dir: string, view: FolderView, kind: LastView): FolderView {
  if (lastViews.get(dir) !== kind) {
    if (lastViews.size >= MAX_LISTINGS && !lastViews.has(dir))
      lastViews.delete(lastViews.keys().next().value!);
    lastViews.set(dir, kind);
  }
  return view;
}

const ABSENT: FolderView = { mayHold: () => false, listed: false };
const LOOK: FolderView = { mayHold: () => true, listed: false };

/** The folder at `dir` (an absolute path) as seen now. Linux only; elsewhere every name is looked up. */
export function viewFolder(dir: string): FolderView {
  const wallBefore = Date.now();
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir, { throwIfNoEntry: false });
  } catch {
    return remember(dir, LOOK, "look"); // unreadable on the way (EACCES, ENOTDIR…): the name's own lookup says why
  }
  if (!stat) return remember(dir, ABSENT, "absent"); // no folder (or a dangling link to one): no name in it exists
  if (!stat.isDirectory() || process.platform !== "linux") return remember(dir, LOOK, "look");
  const names = trustedNames(dir, stat, wallBefore);
  if (!names) return remember(dir, LOOK, "look");
  return remember(
    dir,
    {
      mayHold: (name) => !PLAIN_NAME.test(name) || name === "." || name === ".." || names.has(name),
      listed: true,
    },
    "listed",
  );
}

function trustedNames(dir: string, stat: fs.Stats, wallBefore: number): ReadonlySet<string> | null {
  const known = listings.get(dir);
  if (
    known &&
    known.dev === stat.dev &&
    known.ino === stat.ino &&
    known.mtimeMs === stat.mtimeMs &&
    known.ctimeMs === stat.ctimeMs &&
    known.size === stat.size &&
    clockUnsetSince(known.clockOffset)
  ) {
    return known.names;
  }
  if (known) listings.delete(dir);
  // Changed too recently: a later change could carry the same timestamps. Look names up one by one.
  if (!settledBefore(Math.max(stat.mtimeMs, stat.ctimeMs), wallBefore)) return null;
  const listing: Listing = {
    dev: stat.dev,
    ino: stat.ino,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    size: stat.size,
    names: listNames(dir),
    clockOffset: clockOffset(),
  };
  if (listings.size >= MAX_LISTINGS) listings.delete(listings.keys().next().value!);
  listings.set(dir, listing);
  return listing.names;
}

/** The folder's names, or null when a listing cannot stand in for looking a name up. */
function listNames(dir: string): ReadonlySet<string> | null {
  try {
    if (!LISTABLE_FILESYSTEMS.has(fs.statfsSync(dir).type)) return null;
    const entries = fs.readdirSync(dir);
    if (entries.length > MAX_ENTRIES) return null;
    const names = new Set(entries);
    return caseSensitive(dir, names) ? names : null;
  } catch {
    return null;
  }
}

/**
 * Whether names in the folder are matched byte for byte. A casefolded folder answers a lookup of an
 * existing name in another case; a folder's casefold flag can only change while it is empty (and an
 * empty folder matches nothing either way).
 */
function caseSensitive(dir: string, names: ReadonlySet<string>): boolean {
  if (names.size === 0) return true;
  for (const name of names) {
    if (!PLAIN_NAME.test(name) || !/[A-Za-z]/.test(name)) continue;
    const swapped = [...name]
      .map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join("");
    if (names.has(swapped)) return true; // both spellings exist side by side: case-sensitive
    return fs.lstatSync(`${dir}/${swapped}`, { throwIfNoEntry: false }) === undefined;
  }
  return false; // no name to probe with: do not trust the listing
}
