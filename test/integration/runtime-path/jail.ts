// A temp tree the other user (uid 65534) owns, for running the real agent CLIs on random paths: its HOME
// and the folder the agent starts in, with links inside it. It sits four root-owned folders deep, so a
// path that climbs out of it (however `..` is taken) reaches only folders that user cannot write.
import { lchownSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { OTHER_UID } from "../../support/other-user.js";

export interface Jail {
  /** The folder the other user owns. */
  root: string;
  /** HOME of the agent. */
  home: string;
  /** The folder the agent starts in (its cwd). */
  work: string;
  /** Every file named like `f<n>.txt` (or `~f<n>.txt`) under the jail, by n: its real path (links are not followed). */
  landed(): Promise<Map<number, string>>;
  cleanup(): Promise<void>;
}

async function chownTree(dir: string): Promise<void> {
  lchownSync(dir, OTHER_UID, OTHER_UID);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(p);
    else lchownSync(p, OTHER_UID, OTHER_UID);
  }
}

/**
 * The tree, under `work` = `home/work`:
 * `a/a/a/`, `A/`, `deep → a/a/a`, `up → ..` (home), `sib → ../sib`; and `home/sib/`.
 */
export async function makeJail(prefix: string): Promise<Jail> {
  const outer = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  await fs.chmod(outer, 0o755);
  const margin = path.join(outer, "m1", "m2", "m3", "m4");
  await fs.mkdir(margin, { recursive: true, mode: 0o755 });
  const root = path.join(margin, "jail");
  const home = path.join(root, "home");
  const work = path.join(home, "work");
  await fs.mkdir(path.join(work, "a", "a", "a"), { recursive: true });
  await fs.mkdir(path.join(work, "A"));
  await fs.mkdir(path.join(home, "sib"));
  await fs.symlink(path.join("a", "a", "a"), path.join(work, "deep"));
  await fs.symlink("..", path.join(work, "up"));
  await fs.symlink(path.join("..", "sib"), path.join(work, "sib"));
  await chownTree(root);
  return {
    root,
    home,
    work,
    async landed() {
      const found = new Map<number, string>();
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
          const p = path.join(dir, entry.name);
          if (entry.isDirectory()) await walk(p);
          const n = /^~?f(\d+)\.txt$/.exec(entry.name); // `~f3.txt`: a path that began with `~`
          if (n && entry.isFile()) found.set(Number(n[1]), p);
        }
      };
      await walk(root);
      return found;
    },
    cleanup: () => fs.rm(outer, { recursive: true, force: true }),
  };
}
