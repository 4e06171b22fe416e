// Capability packages (device-protocol.md §7.4): the format is sniffed from the bytes; every entry is
// checked (paths, links, types, encryption, duplicates, counts, sizes) before a byte is written; then
// only the package root is extracted into a staging folder that the caller swaps into the store.
// Sizes bound bytes, not time: a time budget (and the sync's cancellation) is checked between chunks
// and entries, and nothing after a tar's end-of-archive blocks is inflated or parsed.
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import yauzl from "yauzl";
import { compareCodePoints } from "../canonical-json.js";
import { msg, type ArchiveFormat, type PackageKind } from "../messages.js";
import { normalisePluginManifests } from "./plugin-manifest.js";

export interface ArchiveLimits {
  /** Entries per package (default 10 000). */
  maxEntries: number;
  /** Bytes after expansion, on declared sizes and again while inflating (default 200 MiB). */
  maxExpandedBytes: number;
  /** Wall-clock time one package may take to check and extract (default 60 s). */
  maxExtractMs: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxEntries: 10_000,
  maxExpandedBytes: 200 * 1024 * 1024,
  maxExtractMs: 60_000,
};

export type PackageFormat = "zip" | "gzip" | "tar";
export type ExtractResult = { ok: true } | { ok: false; error: string };

/** ZIP `PK\3\4` (or `PK\5\6`, empty), gzip `1F 8B`, tar `ustar` at offset 257; else null. */
export function sniffPackageFormat(bytes: Uint8Array): PackageFormat | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) {
    if ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06)) return "zip";
  }
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return "gzip";
  if (hasUstarMagic(bytes)) return "tar";
  return null;
}

function hasUstarMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 262 && Buffer.from(bytes.subarray(257, 262)).toString("latin1") === "ustar";
}

/** Thrown inside the readers to stop with a contract error message. */
class PackageError extends Error {}

interface PackageEntry {
  segments: string[];
  isDir: boolean;
  executable: boolean;
  read(): Promise<Buffer>;
}

interface Listing {
  entries: PackageEntry[];
  close(): void;
}

/**
 * Splits an entry name into safe segments, or null when it is unsafe: `\`, NUL, empty, absolute
 * (`/x`, `C:x`, `//host`) or a `..` segment. `.` and empty segments (`a//b`, `./a`) are dropped.
 */
export function safeEntrySegments(name: string): string[] | null {
  if (name === "" || name.includes("\\") || name.includes("\0")) return null;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return null;
  const segments = name.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return null;
  return segments;
}

/** Per-package checks shared by the ZIP and TAR readers, in archive order. */
class EntryChecker {
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();
  private declared = 0;
  count = 0;

  constructor(
    private readonly kind: PackageKind,
    private readonly format: ArchiveFormat,
    private readonly limits: ArchiveLimits,
  ) {}

  /** Returns the entry's segments, or null for an entry that names only the package folder itself. */
  check(name: string, isDir: boolean, declaredSize: number): string[] | null {
    this.count++;
    if (this.count > this.limits.maxEntries) throw new PackageError(msg.tooManyFiles(this.kind));
    const segments = safeEntrySegments(name);
    if (segments === null || (segments.length === 0 && !isDir)) {
      throw new PackageError(msg.unsafePath(this.kind, this.format, name));
    }
    if (segments.length === 0) return null;
    // Targets may be case-insensitive (macOS, Windows): compare folded, composed names.
    const key = segments.join("/").normalize("NFC").toLowerCase();
    const duplicate = isDir ? this.files.has(key) : this.files.has(key) || this.dirs.has(key);
    if (duplicate) throw new PackageError(msg.duplicatePath(this.kind, this.format, name));
    if (isDir) this.dirs.add(key);
    else this.files.add(key);
    const parts = key.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      if (this.files.has(parent)) throw new PackageError(msg.duplicatePath(this.kind, this.format, name));
      this.dirs.add(parent);
    }
    this.declared += declaredSize;
    if (this.declared > this.limits.maxExpandedBytes) throw new PackageError(msg.expandedTooLarge(this.kind));
    return segments;
  }
}

/** The time budget of one extraction and the sync's cancellation, checked between chunks and entries. */
class WorkBudget {
  private readonly started = Date.now();
  constructor(
    private readonly kind: PackageKind,
    private readonly maxMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {}
  check(): void {
    if (this.signal?.aborted) throw new PackageError(msg.syncCancelled);
    if (Date.now() - this.started >= this.maxMs)
      throw new PackageError(msg.extractTooSlow(this.kind, this.maxMs));
  }
}

/** Counts inflated bytes across a whole package. */
class ExpansionBudget {
  private used = 0;
  constructor(
    private readonly kind: PackageKind,
    private readonly max: number,
  ) {}
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.max) throw new PackageError(msg.expandedTooLarge(this.kind));
  }
}

// ---- ZIP ----

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function zipError(error: unknown, kind: PackageKind): PackageError {
  if (error instanceof PackageError) return error;
  const message = (error as Error).message ?? String(error);
  if (/encrypt/i.test(message)) return new PackageError(msg.encrypted);
  if (/too many bytes in the stream/.test(message)) return new PackageError(msg.expandedTooLarge(kind));
  return new PackageError(msg.corruptPackage(message));
}

async function listZip(
  bytes: Buffer,
  kind: PackageKind,
  limits: ArchiveLimits,
  work: WorkBudget,
): Promise<Listing> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(bytes, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false, // names are checked here, not rewritten by yauzl
      validateEntrySizes: true,
      strictFileNames: true,
    });
  } catch (error) {
    throw zipError(error, kind);
  }
  const close = () => {
    if (zip.isOpen) zip.close();
  };
  try {
    if (zip.entryCount > limits.maxEntries) throw new PackageError(msg.tooManyFiles(kind));
    const checker = new EntryChecker(kind, "ZIP", limits);
    const budget = new ExpansionBudget(kind, limits.maxExpandedBytes);
    const entries: PackageEntry[] = [];
    for await (const entry of zip.eachEntry()) {
      work.check();
      const rawName = entry.fileNameRaw ?? (entry.fileName as unknown as Buffer);
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, rawName, entry.extraFields, true);
      const mode = entry.externalFileAttributes >>> 16;
      const type = mode & S_IFMT;
      const isDir = name.endsWith("/") || type === S_IFDIR;
      if (safeEntrySegments(name) === null) throw new PackageError(msg.unsafePath(kind, "ZIP", name));
      if (entry.isEncrypted()) throw new PackageError(msg.encrypted);
      if (type === S_IFLNK) throw new PackageError(msg.symlink(name));
      if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
        throw new PackageError(msg.unsupportedEntry(name));
      const segments = checker.check(name, isDir, isDir ? 0 : entry.uncompressedSize);
      if (segments === null) continue;
      entries.push({
        segments,
        isDir,
        executable: !isDir && (mode & 0o111) !== 0,
        read: () => readZipEntry(zip, entry, budget, kind, work),
      });
    }
    return { entries, close };
  } catch (error) {
    close();
    throw zipError(error, kind);
  }
}

async function readZipEntry(
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  budget: ExpansionBudget,
  kind: PackageKind,
  work: WorkBudget,
): Promise<Buffer> {
  try {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      work.check();
      budget.take(chunk.length);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } catch (error) {
    throw zipError(error, kind);
  }
}

// ---- TAR ----

const TAR_FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);
const BLOCK = 512;

/** A header's size field: octal text, or base-256 when the first byte has its high bit set. */
function tarEntrySize(header: Buffer): number | null {
  const field = header.subarray(124, 136);
  if ((field[0] ?? 0) & 0x80) {
    let size = 0;
    for (let i = 1; i < field.length; i++) size = size * 256 + (field[i] ?? 0);
    return Number.isSafeInteger(size) ? size : null;
  }
  const text = field
    .toString("latin1")
    .replace(/[\0 ]+$/, "")
    .trim();
  if (text === "") return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : null;
}

/**
 * Follows a tar's 512-byte blocks (a header, then its body rounded up to whole blocks) to find the
 * end of the archive: two zero blocks where a header is due. Whatever follows is not the archive's
 * and is never inflated or parsed (tar's parser would buffer it, in time that grows with its square).
 */
class TarEndFinder {
  private offset = 0;
  private nextHeader = 0;
  private header: Buffer = Buffer.alloc(0);
  private zeroBlocks = 0;
  /** An unreadable size field: from there on every byte is passed on (tar's parser reports it). */
  private lost = false;
  ended = false;

  /** How many leading bytes of `chunk` belong to the archive. */
  take(chunk: Buffer): number {
    if (this.lost) return chunk.length;
    let used = 0;
    while (!this.ended && used < chunk.length) {
      if (this.offset < this.nextHeader) {
        const skip = Math.min(this.nextHeader - this.offset, chunk.length - used);
        used += skip;
        this.offset += skip;
        continue;
      }
      const part = chunk.subarray(used, used + BLOCK - this.header.length);
      this.header = this.header.length > 0 ? Buffer.concat([this.header, part]) : part;
      used += part.length;
      this.offset += part.length;
      if (this.header.length < BLOCK) break;
      const header = this.header;
      this.header = Buffer.alloc(0);
      this.nextHeader = this.offset;
      if (header.every((byte) => byte === 0)) {
        if (++this.zeroBlocks === 2) this.ended = true;
        continue;
      }
      this.zeroBlocks = 0;
      const size = tarEntrySize(header);
      if (size === null) {
        this.lost = true;
        return chunk.length;
      }
      this.nextHeader += Math.ceil(size / BLOCK) * BLOCK;
    }
    return used;
  }
}

/** A whole tar in memory, handed on in slices so the time budget is checked between them. */
async function* slices(bytes: Buffer, size = 64 * 1024): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function* gunzipped(
  bytes: Buffer,
  cap: number,
  kind: PackageKind,
  work: WorkBudget,
): AsyncGenerator<Buffer> {
  const stream = Readable.from([bytes]).pipe(createGunzip());
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      work.check();
      total += chunk.length;
      if (total > cap) throw new PackageError(msg.expandedTooLarge(kind));
      yield chunk;
    }
  } catch (error) {
    if (error instanceof PackageError) throw error;
    throw new PackageError(msg.corruptPackage(`gzip: ${(error as Error).message}`));
  } finally {
    stream.destroy();
  }
}

/** The decompressed gzip stream must itself be a tar: check the first header before parsing. */
async function* requireTar(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let checked = false;
  for await (const chunk of source) {
    if (checked) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < 262) continue;
    if (!hasUstarMagic(head)) throw new PackageError(msg.unsupportedFormat);
    checked = true;
    yield head;
  }
  if (!checked) throw new PackageError(msg.unsupportedFormat);
}

async function listTar(
  source: AsyncIterable<Buffer>,
  kind: PackageKind,
  limits: ArchiveLimits,
  work: WorkBudget,
): Promise<Listing> {
  const checker = new EntryChecker(kind, "TAR", limits);
  const budget = new ExpansionBudget(kind, limits.maxExpandedBytes);
  const entries: PackageEntry[] = [];
  let failure: PackageError | null = null;
  const fail = (error: unknown) => {
    failure ??=
      error instanceof PackageError
        ? error
        : new PackageError(msg.corruptPackage(String((error as Error).message ?? error)));
  };
  const parser = new Parser({ strict: true });
  const done = new Promise<void>((resolve) => {
    parser.on("close", () => resolve());
  });
  parser.on("error", fail);
  parser.on("ignoredEntry", (entry: ReadEntry) => fail(new PackageError(msg.unsupportedEntry(entry.path))));
  parser.on("entry", (entry: ReadEntry) => {
    if (failure) return entry.resume();
    try {
      const name = entry.path;
      const isDir = entry.type === "Directory";
      if (safeEntrySegments(name) === null) throw new PackageError(msg.unsafePath(kind, "TAR", name));
      if (entry.type === "SymbolicLink" || entry.type === "Link") throw new PackageError(msg.symlink(name));
      if (!isDir && !TAR_FILE_TYPES.has(entry.type)) throw new PackageError(msg.unsupportedEntry(name));
      const segments = checker.check(name, isDir, isDir ? 0 : entry.size);
      if (segments === null || isDir) {
        if (segments) entries.push({ segments, isDir, executable: false, read: async () => Buffer.alloc(0) });
        return entry.resume();
      }
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => {
        if (failure) return;
        try {
          budget.take(chunk.length);
          chunks.push(chunk);
        } catch (error) {
          fail(error);
        }
      });
      const data = new Promise<Buffer>((resolve) => entry.on("end", () => resolve(Buffer.concat(chunks))));
      entries.push({ segments, isDir, executable: ((entry.mode ?? 0) & 0o111) !== 0, read: () => data });
    } catch (error) {
      fail(error);
      entry.resume();
    }
  });
  const end = new TarEndFinder();
  try {
    for await (const chunk of source) {
      if (failure) break;
      work.check();
      const archive = chunk.subarray(0, end.take(chunk));
      if (archive.length > 0 && !parser.write(archive))
        await new Promise((resolve) => parser.once("drain", resolve));
      if (end.ended) break; // leaving the loop stops the gunzip stream too
    }
  } catch (error) {
    fail(error);
  }
  parser.end();
  await done;
  if (failure) throw failure;
  return { entries, close: () => undefined };
}

// ---- common ----

function isSkipped(segments: string[]): boolean {
  return segments.some((s) => s === "__MACOSX" || s.startsWith("._"));
}

const PLUGIN_MANIFEST_DIRS = new Set([".codex-plugin", ".claude-plugin"]);

/** The folder of the shallowest marker file; ties go to the first in path order. */
function findRoot(entries: PackageEntry[], kind: PackageKind): string[] | null {
  let best: { root: string[]; path: string } | null = null;
  for (const entry of entries) {
    if (entry.isDir) continue;
    const s = entry.segments;
    let root: string[] | null = null;
    if (kind === "skill" && s[s.length - 1] === "SKILL.md") root = s.slice(0, -1);
    if (
      kind === "plugin" &&
      s.length >= 2 &&
      s[s.length - 1] === "plugin.json" &&
      PLUGIN_MANIFEST_DIRS.has(s[s.length - 2] ?? "")
    ) {
      root = s.slice(0, -2);
    }
    if (root === null) continue;
    const p = s.join("/");
    if (
      !best ||
      root.length < best.root.length ||
      (root.length === best.root.length && compareCodePoints(p, best.path) < 0)
    ) {
      best = { root, path: p };
    }
  }
  return best?.root ?? null;
}

const HOOK_FOLDERS = new Set(["hooks", "hooks-handlers", "hook-handlers"]);

/**
 * Gives files and folders exactly the mode asked for. The umask may narrow a create mode; the first
 * item of each mode is checked, and chmod is spent on the rest only when the umask got in the way.
 */
class ExactModes {
  private readonly settled = new Map<number, boolean>();
  async apply(target: string, mode: number): Promise<void> {
    const needsChmod = this.settled.get(mode);
    if (needsChmod === false) return;
    if (needsChmod === undefined) {
      const ok = ((await fs.stat(target)).mode & 0o777) === mode;
      this.settled.set(mode, !ok);
      if (ok) return;
    }
    await fs.chmod(target, mode);
  }
}

async function writeEntries(
  entries: PackageEntry[],
  root: string[],
  dest: string,
  kind: PackageKind,
  work: WorkBudget,
): Promise<void> {
  const fileModes = new ExactModes();
  const dirModes = new ExactModes();
  const made = new Set<string>([dest]);
  await fs.chmod(dest, 0o755);
  const ensureDir = async (dir: string): Promise<void> => {
    if (made.has(dir)) return;
    await ensureDir(path.dirname(dir));
    await fs.mkdir(dir, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    made.add(dir);
    await dirModes.apply(dir, 0o755);
  };
  const under = entries.filter(
    (e) => e.segments.length > root.length && root.every((segment, i) => e.segments[i] === segment),
  );
  for (const entry of under) {
    work.check();
    const relative = entry.segments.slice(root.length);
    const target = path.join(dest, ...relative);
    if (entry.isDir) {
      await ensureDir(target);
      continue;
    }
    await ensureDir(path.dirname(target));
    const data = await entry.read();
    const hook = kind === "plugin" && relative.length > 1 && HOOK_FOLDERS.has(relative[0] ?? "");
    const mode = entry.executable || hook ? 0o755 : 0o644;
    await fs.writeFile(target, data, { mode, flag: "wx" });
    await fileModes.apply(target, mode);
  }
}

/**
 * Checks `bytes` as a `kind` package and extracts its root into `dest` (an empty staging folder).
 * Expected refusals come back as `{ok: false, error}` with the contract's message; so do an
 * extraction over its time budget and one cancelled through `signal` (the caller discards `dest`).
 */
export async function extractPackage(
  bytes: Buffer,
  kind: PackageKind,
  dest: string,
  limits: Partial<ArchiveLimits> = DEFAULT_ARCHIVE_LIMITS,
  signal?: AbortSignal,
): Promise<ExtractResult> {
  const all: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
  const format = sniffPackageFormat(bytes);
  if (format === null) return { ok: false, error: msg.unsupportedFormat };
  const work = new WorkBudget(kind, all.maxExtractMs, signal);
  let listing: Listing | null = null;
  try {
    work.check();
    if (format === "zip") listing = await listZip(bytes, kind, all, work);
    else if (format === "tar") listing = await listTar(slices(bytes), kind, all, work);
    else {
      // bound the decompressed stream: file data plus generous room for headers
      const cap = all.maxExpandedBytes + 64 * 1024 * 1024;
      listing = await listTar(requireTar(gunzipped(bytes, cap, kind, work)), kind, all, work);
    }
    const kept = listing.entries.filter((e) => !isSkipped(e.segments));
    const root = findRoot(kept, kind);
    if (root === null)
      return { ok: false, error: kind === "skill" ? msg.missingSkillMd : msg.missingPluginManifest };
    await writeEntries(kept, root, dest, kind, work);
    if (kind === "plugin") {
      const problem = await normalisePluginManifests(dest);
      if (problem) return { ok: false, error: problem };
    }
    return { ok: true };
  } catch (error) {
    if (error instanceof PackageError) return { ok: false, error: error.message };
    throw error;
  } finally {
    listing?.close();
  }
}
