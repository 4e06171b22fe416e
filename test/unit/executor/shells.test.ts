import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bashArgs, spawnTargetFor } from "../../../src/executor/shell-command.js";
import { BASH_LOCATIONS, cmdExe, findBash, windowsPowerShell } from "../../../src/executor/shells.js";

const isRoot = process.getuid?.() === 0;
let dir: string;
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-shells-")));
  await fs.chmod(dir, 0o755);
});
afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

async function fakeBash(name: string, mode = 0o755): Promise<string> {
  const file = path.join(dir, name);
  await fs.copyFile("/bin/sh", file);
  await fs.chmod(file, mode);
  return file;
}

describe("finding bash", () => {
  it("looks only in fixed system locations", () => {
    expect(BASH_LOCATIONS.every((p) => path.isAbsolute(p))).toBe(true);
  });

  it("takes the first candidate that is a root-owned executable nobody else can write", async () => {
    const found = await findBash();
    expect(found).not.toBeNull();
    expect(BASH_LOCATIONS).toContain(found);
  });

  it("finds none on Windows, nor where no candidate exists", async () => {
    expect(await findBash(BASH_LOCATIONS, "win32")).toBeNull();
    expect(await findBash([path.join(dir, "missing"), dir])).toBeNull();
  });

  it.skipIf(!isRoot)(
    "skips a candidate that group or others can write, or that is not executable",
    async () => {
      const writable = await fakeBash("bash-gw", 0o775);
      const plain = await fakeBash("bash-noexec", 0o644);
      const good = await fakeBash("bash-ok");
      expect(await findBash([writable, plain, good])).toBe(good);
    },
  );

  it.skipIf(!isRoot)("skips a candidate in a folder others can write", async () => {
    const good = await fakeBash("bash-ok");
    await fs.chmod(dir, 0o777);
    expect(await findBash([good])).toBeNull();
  });

  it.skipIf(isRoot)("skips a candidate that root does not own", async () => {
    expect(await findBash([await fakeBash("bash-mine")])).toBeNull();
  });
});

describe("the program a shell string runs under", () => {
  it("is bash without startup files, the text after --", async () => {
    const target = await spawnTargetFor({ command: "-x echo" }, { bash: "/bin/bash", baseEnv: {} }, "linux");
    expect(target).toEqual({
      ok: true,
      target: { file: "/bin/bash", args: ["--noprofile", "--norc", "-c", "--", "-x echo"] },
    });
    expect(bashArgs("t")).toEqual(["--noprofile", "--norc", "-c", "--", "t"]);
  });

  it("is /bin/sh, with a note, where the machine has no bash", async () => {
    const target = await spawnTargetFor({ command: "true" }, { bash: null, baseEnv: {} }, "linux");
    expect(target).toMatchObject({ ok: true, target: { file: "/bin/sh", args: ["-c", "--", "true"] } });
    expect(target.ok && target.target.note).toMatch(/no bash/);
  });

  it("is cmd.exe and PowerShell from the runner's system folder on Windows, never from ComSpec or PATH", async () => {
    const baseEnv = { SystemRoot: "D:\\Win", ComSpec: "C:\\evil\\cmd.exe", PATH: "C:\\evil" };
    const cmd = await spawnTargetFor({ command: "dir", shell: "cmd" }, { baseEnv }, "win32");
    expect(cmd).toMatchObject({ ok: true, target: { file: "D:\\Win\\System32\\cmd.exe" } });
    const ps = await spawnTargetFor({ command: "dir", shell: "powershell" }, { baseEnv }, "win32");
    expect(ps).toMatchObject({
      ok: true,
      target: { file: "D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" },
    });
    expect(cmdExe({ SystemRoot: "relative" })).toBe("C:\\Windows\\System32\\cmd.exe");
    expect(windowsPowerShell({})).toMatch(/^C:\\Windows\\System32\\/);
  });
});
