// Homes for the fault-injection suite (issue 30 item 2): a home set up once (a template) and copied,
// owner and modes included, for every kill point, so each run starts from the very same bytes (the
// approvals file's token and entry ids are random: setting up again would change them). Owned by uid
// 65534 when the runs go as that user (commands the policy lets through, a read-only E).
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resolvePaths } from "../../src/core/paths.js";
import { OTHER_UID } from "./other-user.js";
import type { TempHome } from "./temp-home.js";

/** A copy of `template` (a home folder) in a new temp folder, as `cp -a` makes it. */
export async function copyHome(template: TempHome, prefix: string): Promise<TempHome> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(parent, 0o755);
  const home = path.join(parent, "h");
  execFileSync("cp", ["-a", template.home, home]);
  const env = { ...template.env, HOME: home };
  return {
    home,
    env,
    paths: resolvePaths(env),
    cleanup: () => fs.rm(parent, { recursive: true, force: true }),
  };
}

/** Gives the whole home to uid 65534 (the user the runs go as). */
export function giveToOtherUser(home: string): void {
  execFileSync("chown", ["-R", `${OTHER_UID}:${OTHER_UID}`, home]);
}

/** Every file under `dir` and its bytes (a user folder's state, to prove a run left it untouched). */
export async function filesUnder(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const entry of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) out[path.relative(dir, full)] = await fs.readFile(full, "utf8");
    }
  };
  await walk(dir);
  return out;
}

/**
 * A full disk for real: a small tmpfs mounted over `dir` (E) with what `dir` held copied in, then
 * filled to the last byte. Needs root (a container may refuse the mount too): null and the reason
 * then, and the suite falls back to the injected ENOSPC of fs-steps.ts alone.
 */
export async function mountFullDisk(
  dir: string,
  options: { owner?: number } = {},
): Promise<{ unmount(): void; free(bytes: number): Promise<void> } | string> {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return "mounting a tmpfs needs root on Linux";
  const saved = `${dir}.before-mount`;
  await fs.rename(dir, saved);
  await fs.mkdir(dir, { mode: 0o700 });
  const uid = options.owner ?? 0;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=256k,mode=0700,uid=${uid},gid=${uid}`, "tmpfs", dir], {
      stdio: "pipe",
    });
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(saved, dir);
    return `cannot mount a tmpfs here: ${(error as Error).message.split("\n")[0]}`;
  }
  const unmount = () => execFileSync("umount", ["-l", dir], { stdio: "pipe" });
  const filler = path.join(dir, "fill.bin");
  try {
    // E's files without Node's compile cache (a cache: rebuilt when missing, and large)
    for (const name of await fs.readdir(saved))
      if (name !== "compile-cache") execFileSync("cp", ["-a", path.join(saved, name), dir]);
    await fs.rm(saved, { recursive: true, force: true });
    const chunk = Buffer.alloc(4096, 1);
    const handle = await fs.open(filler, "w");
    try {
      for (;;) await handle.write(chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
    } finally {
      await handle.close();
    }
    await fs.chown(filler, uid, uid); // a file of someone else in E would be refused for that instead
  } catch (error) {
    unmount();
    throw error;
  }
  return {
    unmount,
    /** Frees `bytes` of the filler (a person deleting something). */
    async free(bytes: number) {
      const size = (await fs.stat(filler)).size;
      await fs.truncate(filler, Math.max(0, size - bytes));
    },
  };
}
