// Capability package fixtures: well-formed ZIPs through yazl, tar/tar.gz through tar's own header
// encoder, and a tiny hand-written ZIP writer for the malicious corpus (backslashes, absolute
// paths, `..`, symlink modes, the encrypted flag, lying size headers) that yazl rightly refuses.
import { deflateRawSync, crc32, gzipSync } from "node:zlib";
import { Header } from "tar";

export { makeZip, skillMd, type ZipFileSpec } from "../../src/demo-backend/zip.js";
import { makeZip, MTIME, skillMd, type ZipFileSpec } from "../../src/demo-backend/zip.js";

/** A skill package: `SKILL.md` plus `extra` files, optionally under a top folder. */
export function skillZip(
  name: string,
  options: { prefix?: string; extra?: ZipFileSpec[] } = {},
): Promise<Buffer> {
  const prefix = options.prefix ?? "";
  return makeZip([
    { name: `${prefix}SKILL.md`, data: skillMd(name) },
    ...(options.extra ?? []).map((f) => ({ ...f, name: `${prefix}${f.name}` })),
  ]);
}

/** A plugin package with a Claude manifest, one skill and a hook script. */
export function pluginZip(
  name: string,
  options: {
    version?: string;
    claude?: Record<string, unknown> | null;
    codex?: Record<string, unknown> | null;
    extra?: ZipFileSpec[];
    prefix?: string;
  } = {},
): Promise<Buffer> {
  const prefix = options.prefix ?? "";
  const files: ZipFileSpec[] = [];
  const claude =
    options.claude === undefined
      ? { name, version: options.version ?? "1.0.0", description: `${name} plugin` }
      : options.claude;
  if (claude) files.push({ name: `${prefix}.claude-plugin/plugin.json`, data: JSON.stringify(claude) });
  if (options.codex)
    files.push({ name: `${prefix}.codex-plugin/plugin.json`, data: JSON.stringify(options.codex) });
  files.push(
    {
      name: `${prefix}skills/${name}-helper/SKILL.md`,
      data: skillMd(`${name}-helper`, `Helps with ${name}`),
    },
    { name: `${prefix}hooks/pre.sh`, data: "#!/bin/sh\nexit 0\n" },
    ...(options.extra ?? []).map((f) => ({ ...f, name: `${prefix}${f.name}` })),
  );
  return makeZip(files);
}

// ---- tar ----

export interface TarEntrySpec {
  path: string;
  type?: "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "BlockDevice" | "FIFO";
  data?: string | Buffer;
  mode?: number;
  linkpath?: string;
}

/** A ustar archive written block by block with tar's header encoder (any path, any type). */
export function makeTar(entries: TarEntrySpec[], options: { gzip?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? "File";
    const data = type === "File" ? Buffer.from(entry.data ?? "") : Buffer.alloc(0);
    const header = new Header({
      path: entry.path,
      type,
      mode: entry.mode ?? (type === "Directory" ? 0o755 : 0o644),
      size: data.length,
      linkpath: entry.linkpath,
      mtime: MTIME,
      uid: 0,
      gid: 0,
      uname: "",
      gname: "",
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return options.gzip ? gzipSync(tar) : tar;
}

// ---- a minimal ZIP writer for hostile archives ----

export interface RawZipEntry {
  /** Written byte for byte (no validation): `../x`, `/etc/x`, `a\\b` are all fine here. */
  name: string | Buffer;
  data?: string | Buffer;
  /** 0 = stored, 8 = deflate (default). */
  method?: 0 | 8;
  /** General purpose flags; bit 0 = encrypted, bit 11 (0x800) = UTF-8 name (set by default). */
  flags?: number;
  /** Unix mode including the file type bits (0o120777 = symlink); stored in the external attributes. */
  unixMode?: number;
  /** Lie about the uncompressed size in both headers. */
  declaredSize?: number;
}

/**
 * Writes a ZIP from raw parts: local headers + data, a central directory, the end record. Only the
 * features the tests need (no zip64, no data descriptors). "Made by" is Unix so modes are honoured.
 */
export function rawZip(entries: RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.isBuffer(entry.name) ? entry.name : Buffer.from(entry.name, "utf8");
    const data = Buffer.from(entry.data ?? "");
    const method = entry.method ?? 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const flags = entry.flags ?? 0x800;
    const size = entry.declaredSize ?? data.length;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5821, 12); // 2024-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, spec 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x5821, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(((entry.unixMode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
