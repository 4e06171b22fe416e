// Builds a zip in memory from `{path: text}` (the package format Wegent backends serve).
import yazl from "yazl";

export function zipFiles(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) {
    const mode = name.endsWith(".sh") ? 0o100755 : 0o100644;
    zip.addBuffer(Buffer.from(text, "utf8"), name, { mode, mtime: new Date("2024-01-01T00:00:00Z") });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on("error", reject);
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
  });
}
