// ZIP building for the embedded demo backend (and the test fixtures that reuse it): well-formed
// packages through yazl, the way a well-behaved backend builds them.
import yazl from "yazl";

export interface ZipFileSpec {
  name: string;
  data?: string | Buffer;
  /** Unix mode bits (e.g. 0o755). */
  mode?: number;
  /** A directory entry (`name` should end with `/`). */
  dir?: boolean;
}

/** Every fixture entry has this modification time, so packages are byte-for-byte reproducible. */
export const MTIME = new Date("2024-01-01T00:00:00Z");

/** A ZIP built by yazl, the way a well-behaved backend would build it. */
export function makeZip(files: ZipFileSpec[], options: { compress?: boolean } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const file of files) {
    if (file.dir) zip.addEmptyDirectory(file.name, { mtime: MTIME });
    else {
      zip.addBuffer(Buffer.from(file.data ?? ""), file.name, {
        mtime: MTIME,
        mode: 0o100000 | (file.mode ?? 0o644),
        compress: options.compress ?? true,
      });
    }
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
}

export function skillMd(name: string, description = `The ${name} skill`): string {
  return `---\nname: ${name}\ndescription: "${description}"\n---\n\n# ${name}\n\nDo the thing.\n`;
}
