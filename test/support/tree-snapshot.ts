// A folder tree as data, for comparing what is on disk: every entry (links not followed), sorted, file
// contents hashed. Shared by the capability sync tests and the crash harness.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

export interface TreeEntry {
  path: string;
  type: "file" | "dir" | "link";
  mode?: number;
  content?: string;
  target?: string;
}

/** Every entry under `root` (links not followed), sorted; file contents hashed. */
export async function snapshotTree(
  root: string,
  options: { skip?: (rel: string) => boolean } = {},
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const walk = async (dir: string) => {
    let names: string[];
    try {
      names = (await fs.readdir(dir)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (options.skip?.(rel)) continue;
      const stat = await fs.lstat(full);
      if (stat.isSymbolicLink()) out.push({ path: rel, type: "link", target: await fs.readlink(full) });
      else if (stat.isDirectory()) {
        out.push({ path: rel, type: "dir", mode: stat.mode & 0o777 });
        await walk(full);
      } else {
        const content = createHash("sha256")
          .update(await fs.readFile(full))
          .digest("hex");
        out.push({ path: rel, type: "file", mode: stat.mode & 0o777, content });
      }
    }
  };
  await walk(root);
  return out;
}
