import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import {
  extractPackage,
  sniffPackageFormat,
  type ArchiveLimits,
} from "../../../src/core/capabilities/io/archive.js";
import { makeTar, makeZip, pluginZip, rawZip, skillMd, type RawZipEntry } from "../../support/archives.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { snapshotTree } from "../../integration/capabilities/sync-fixture.js";

let t: TempHome;
let dest: string;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-archive-");
  dest = path.join(t.home, "staging", "pkg");
  await fs.mkdir(dest, { recursive: true });
});
afterEach(async () => t.cleanup());

const SKILL = { name: "SKILL.md", data: skillMd("demo") } as const;

async function refused(
  bytes: Buffer,
  kind: "skill" | "plugin",
  limits?: Partial<ArchiveLimits>,
): Promise<string> {
  const result = await extractPackage(bytes, kind, dest, limits);
  if (result.ok) throw new Error("expected the package to be refused");
  // nothing was written anywhere: the staging folder is empty and nothing appeared next to it
  expect(await snapshotTree(t.home)).toEqual([
    { path: "staging", type: "dir", mode: expect.any(Number) },
    { path: "staging/pkg", type: "dir", mode: expect.any(Number) },
  ]);
  return result.error;
}

const rawSkill = (...entries: RawZipEntry[]) =>
  rawZip([{ name: "SKILL.md", data: skillMd("demo") }, ...entries]);

describe("archive sniffing", () => {
  it("recognises ZIP, gzip and tar from the bytes, never from a name", async () => {
    expect(sniffPackageFormat(await makeZip([SKILL]))).toBe("zip");
    expect(sniffPackageFormat(rawZip([]))).toBe("zip");
    expect(sniffPackageFormat(makeTar([{ path: "SKILL.md", data: "x" }]))).toBe("tar");
    expect(sniffPackageFormat(makeTar([{ path: "SKILL.md", data: "x" }], { gzip: true }))).toBe("gzip");
    expect(sniffPackageFormat(Buffer.from("<html>not a package</html>"))).toBeNull();
  });

  it("refuses anything else, including a gzip stream that is not a tar", async () => {
    expect(await refused(Buffer.from("<html>502 Bad Gateway</html>"), "skill")).toBe(
      "Unsupported capability package format",
    );
    expect(await refused(gzipSync(Buffer.from("just some text ".repeat(100))), "skill")).toBe(
      "Unsupported capability package format",
    );
  });
});

describe("malicious ZIP corpus: refused before anything is written", () => {
  it("refuses `..` entries, absolute paths, drive letters, UNC paths, backslashes, NUL and empty names", async () => {
    const cases: [string | Buffer, string][] = [
      ["../evil.txt", "../evil.txt"],
      ["a/../../evil.txt", "a/../../evil.txt"],
      ["/etc/evil.txt", "/etc/evil.txt"],
      ["C:evil.txt", "C:evil.txt"],
      ["C:/Windows/evil.txt", "C:/Windows/evil.txt"],
      ["//host/share/evil.txt", "//host/share/evil.txt"],
      ["dir\\..\\..\\evil.txt", "dir\\..\\..\\evil.txt"],
      ["a\\b.txt", "a\\b.txt"],
      [Buffer.from("a\0b.txt", "latin1"), "a\0b.txt"],
      ["", ""],
    ];
    for (const [name, shown] of cases) {
      expect(await refused(rawSkill({ name }), "skill")).toBe(`Unsafe path in skill ZIP: ${shown}`);
    }
    expect(
      await refused(
        rawZip([{ name: ".claude-plugin/plugin.json", data: '{"name":"p"}' }, { name: "../x" }]),
        "plugin",
      ),
    ).toBe("Unsafe path in plugin ZIP: ../x");
  });

  it("refuses symbolic link entries, including links that point outside the package", async () => {
    const link = (name: string, target: string): RawZipEntry => ({
      name,
      data: target,
      method: 0,
      unixMode: 0o120777,
    });
    expect(await refused(rawSkill(link("notes", "../../../../etc/passwd")), "skill")).toBe(
      "Symbolic links are not allowed: notes",
    );
    expect(await refused(rawSkill(link("abs", "/etc/shadow")), "skill")).toBe(
      "Symbolic links are not allowed: abs",
    );
    expect(await refused(rawSkill(link("inside", "SKILL.md")), "skill")).toBe(
      "Symbolic links are not allowed: inside",
    );
  });

  it("refuses device and FIFO entries marked in the Unix mode", async () => {
    expect(await refused(rawSkill({ name: "fifo", unixMode: 0o010644 }), "skill")).toBe(
      "Unsupported entry type in package: fifo",
    );
  });

  it("refuses duplicate paths, compared case-insensitively, and a file that is also a folder", async () => {
    expect(await refused(rawSkill({ name: "skill.md", data: "again" }), "skill")).toBe(
      "Duplicate path in skill ZIP: skill.md",
    );
    expect(await refused(rawSkill({ name: "a/x.txt" }, { name: "a/./x.txt" }), "skill")).toBe(
      "Duplicate path in skill ZIP: a/./x.txt",
    );
    expect(await refused(rawSkill({ name: "a" }, { name: "a/b.txt" }), "skill")).toBe(
      "Duplicate path in skill ZIP: a/b.txt",
    );
    expect(await refused(rawSkill({ name: "docs/" }, { name: "DOCS" }), "skill")).toBe(
      "Duplicate path in skill ZIP: DOCS",
    );
  });

  it("refuses encrypted entries", async () => {
    expect(await refused(rawSkill({ name: "secret.txt", data: "x", flags: 0x801 }), "skill")).toBe(
      "Encrypted files are not allowed",
    );
  });

  it("refuses 10 001 entries", async () => {
    const entries: RawZipEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      name: `f/${i}.txt`,
      method: 0,
    }));
    expect(await refused(rawSkill(...entries), "skill")).toBe("Skill package contains too many files");
    expect(
      await refused(
        rawZip([{ name: ".claude-plugin/plugin.json", data: '{"name":"p"}' }, ...entries]),
        "plugin",
      ),
    ).toBe("Plugin package contains too many files");
  });

  it("refuses a package whose files add up past the expansion limit", async () => {
    const limits = { maxEntries: 10_000, maxExpandedBytes: 4096 };
    const zip = await makeZip([
      SKILL,
      { name: "a.bin", data: Buffer.alloc(3000) },
      { name: "b.bin", data: Buffer.alloc(3000) },
    ]);
    expect(await refused(zip, "skill", limits)).toBe("Expanded skill package is too large");
    const tar = makeTar(
      [
        { path: "SKILL.md", data: "x" },
        { path: "big.bin", data: Buffer.alloc(5000) },
      ],
      { gzip: true },
    );
    expect(await refused(tar, "skill", limits)).toBe("Expanded skill package is too large");
  });

  it("trips the declared-size check on a header that claims 300 MiB, without inflating anything", async () => {
    const lying = rawSkill({ name: "bomb.bin", data: Buffer.alloc(10), declaredSize: 300 * 1024 * 1024 });
    expect(lying.length).toBeLessThan(1024);
    expect(await refused(lying, "skill")).toBe("Expanded skill package is too large");
  });

  it("stops inflating an entry that expands past what its header declared", async () => {
    const lying = rawSkill({ name: "grows.bin", data: Buffer.alloc(100_000), declaredSize: 10 });
    const result = await extractPackage(lying, "skill", dest);
    expect(result).toEqual({ ok: false, error: "Expanded skill package is too large" });
  });

  it("refuses a skill package without SKILL.md and a plugin package without a manifest", async () => {
    expect(await refused(await makeZip([{ name: "README.md", data: "hi" }]), "skill")).toBe(
      "Skill package is missing SKILL.md",
    );
    expect(await refused(await makeZip([{ name: "__MACOSX/SKILL.md", data: "x" }]), "skill")).toBe(
      "Skill package is missing SKILL.md",
    );
    expect(await refused(rawZip([]), "skill")).toBe("Skill package is missing SKILL.md");
    expect(await refused(await makeZip([{ name: "plugin.json", data: "{}" }]), "plugin")).toBe(
      "Plugin package is missing .codex-plugin/plugin.json or .claude-plugin/plugin.json",
    );
  });
});

describe("malicious TAR corpus", () => {
  const tarSkill = (...more: Parameters<typeof makeTar>[0]) =>
    makeTar([{ path: "SKILL.md", data: skillMd("demo") }, ...more]);

  it("refuses unsafe paths in tar and tar.gz", async () => {
    expect(await refused(tarSkill({ path: "../evil.txt", data: "x" }), "skill")).toBe(
      "Unsafe path in skill TAR: ../evil.txt",
    );
    expect(await refused(tarSkill({ path: "/etc/evil.txt", data: "x" }), "skill")).toBe(
      "Unsafe path in skill TAR: /etc/evil.txt",
    );
    expect(await refused(tarSkill({ path: "a\\b.txt", data: "x" }), "skill")).toBe(
      "Unsafe path in skill TAR: a\\b.txt",
    );
    const gz = makeTar(
      [
        { path: ".claude-plugin/plugin.json", data: '{"name":"p"}' },
        { path: "x/../../y", data: "" },
      ],
      { gzip: true },
    );
    expect(await refused(gz, "plugin")).toBe("Unsafe path in plugin TAR: x/../../y");
  });

  it("refuses symbolic links, hard links, devices and FIFOs", async () => {
    expect(
      await refused(tarSkill({ path: "l", type: "SymbolicLink", linkpath: "/etc/passwd" }), "skill"),
    ).toBe("Symbolic links are not allowed: l");
    expect(await refused(tarSkill({ path: "h", type: "Link", linkpath: "../../outside" }), "skill")).toBe(
      "Symbolic links are not allowed: h",
    );
    expect(await refused(tarSkill({ path: "dev", type: "CharacterDevice" }), "skill")).toBe(
      "Unsupported entry type in package: dev",
    );
    expect(await refused(tarSkill({ path: "blk", type: "BlockDevice" }), "skill")).toBe(
      "Unsupported entry type in package: blk",
    );
    expect(await refused(tarSkill({ path: "pipe", type: "FIFO" }), "skill")).toBe(
      "Unsupported entry type in package: pipe",
    );
  });

  it("refuses duplicates and too many entries", async () => {
    expect(await refused(tarSkill({ path: "Skill.MD", data: "x" }), "skill")).toBe(
      "Duplicate path in skill TAR: Skill.MD",
    );
    const many = Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, data: "x" }));
    expect(await refused(tarSkill(...many), "skill", { maxEntries: 5, maxExpandedBytes: 1 << 20 })).toBe(
      "Skill package contains too many files",
    );
  });
});

describe("extraction", () => {
  it("extracts the folder of the shallowest SKILL.md, skipping macOS metadata", async () => {
    const zip = await makeZip([
      { name: "repo/README.md", data: "outside the root" },
      { name: "repo/demo/SKILL.md", data: skillMd("demo") },
      { name: "repo/demo/scripts/run.sh", data: "#!/bin/sh\n", mode: 0o755 },
      { name: "repo/demo/reference/nested/SKILL.md", data: skillMd("nested") },
      { name: "repo/demo/empty/", dir: true },
      { name: "repo/demo/._SKILL.md", data: "resource fork" },
      { name: "__MACOSX/repo/demo/._run.sh", data: "x" },
    ]);
    expect(await extractPackage(zip, "skill", dest)).toEqual({ ok: true });
    const tree = await snapshotTree(dest);
    expect(tree.map((e) => [e.path, e.type, e.mode])).toEqual([
      ["SKILL.md", "file", 0o644],
      ["empty", "dir", 0o755],
      ["reference", "dir", 0o755],
      ["reference/nested", "dir", 0o755],
      ["reference/nested/SKILL.md", "file", 0o644],
      ["scripts", "dir", 0o755],
      ["scripts/run.sh", "file", 0o755],
    ]);
  });

  it("writes 0644 files and 0755 folders (implicit parents too) even under a restrictive umask", async () => {
    const previous = process.umask(0o077);
    try {
      const zip = await makeZip([
        { name: "SKILL.md", data: skillMd("demo") },
        { name: "deep/er/file.txt", data: "x" },
        { name: "deep/er/run", data: "x", mode: 0o755 },
      ]);
      expect(await extractPackage(zip, "skill", dest)).toEqual({ ok: true });
    } finally {
      process.umask(previous);
    }
    expect((await snapshotTree(dest)).map((e) => [e.path, e.mode])).toEqual([
      ["SKILL.md", 0o644],
      ["deep", 0o755],
      ["deep/er", 0o755],
      ["deep/er/file.txt", 0o644],
      ["deep/er/run", 0o755],
    ]);
    expect((await fs.stat(dest)).mode & 0o777).toBe(0o755);
  });

  it("breaks a tie between equally shallow SKILL.md files by path order", async () => {
    const zip = await makeZip([
      { name: "b/SKILL.md", data: skillMd("b") },
      { name: "a/SKILL.md", data: skillMd("a") },
    ]);
    expect(await extractPackage(zip, "skill", dest)).toEqual({ ok: true });
    expect(await fs.readFile(path.join(dest, "SKILL.md"), "utf8")).toBe(skillMd("a"));
    expect(await fs.readdir(dest)).toEqual(["SKILL.md"]);
  });

  it("extracts tar.gz packages with ./ prefixes and executable bits", async () => {
    const tgz = makeTar(
      [
        { path: "./", type: "Directory" },
        { path: "./SKILL.md", data: skillMd("t") },
        { path: "./bin/", type: "Directory" },
        { path: "./bin/tool", data: "#!/bin/sh\n", mode: 0o755 },
      ],
      { gzip: true },
    );
    expect(await extractPackage(tgz, "skill", dest)).toEqual({ ok: true });
    expect((await fs.stat(path.join(dest, "bin/tool"))).mode & 0o777).toBe(0o755);
    expect((await fs.stat(path.join(dest, "SKILL.md"))).mode & 0o777).toBe(0o644);
  });

  it("makes files in a plugin's top-level hooks folders executable", async () => {
    const zip = await makeZip([
      { name: "p/.claude-plugin/plugin.json", data: JSON.stringify({ name: "p" }) },
      { name: "p/hooks/a.sh", data: "x" },
      { name: "p/hooks-handlers/b.py", data: "x" },
      { name: "p/hook-handlers/c.js", data: "x" },
      { name: "p/docs/hooks/not-top-level.sh", data: "x" },
    ]);
    expect(await extractPackage(zip, "plugin", dest)).toEqual({ ok: true });
    const mode = async (rel: string) => (await fs.stat(path.join(dest, rel))).mode & 0o777;
    expect(await mode("hooks/a.sh")).toBe(0o755);
    expect(await mode("hooks-handlers/b.py")).toBe(0o755);
    expect(await mode("hook-handlers/c.js")).toBe(0o755);
    expect(await mode("docs/hooks/not-top-level.sh")).toBe(0o644);
  });
});

describe("plugin manifests (§7.4)", () => {
  const read = async (rel: string) =>
    JSON.parse(await fs.readFile(path.join(dest, rel), "utf8")) as Record<string, unknown>;

  it("generates the Codex manifest from the Claude one and rewrites Claude's to the keys it accepts", async () => {
    const claude = {
      name: "ctx",
      version: "2.0.0",
      description: "Docs lookup",
      displayName: "Context",
      author: { name: "A" },
      keywords: ["docs"],
      hooks: "./hooks/hooks.json",
      marketplaceOnlyField: true,
    };
    expect(await extractPackage(await pluginZip("ctx", { claude }), "plugin", dest)).toEqual({ ok: true });
    expect(await read(".codex-plugin/plugin.json")).toEqual({
      name: "ctx",
      version: "2.0.0",
      description: "Docs lookup",
      author: { name: "A" },
      keywords: ["docs"],
      interface: { displayName: "Context", shortDescription: "Docs lookup" },
    });
    expect(await read(".claude-plugin/plugin.json")).toEqual({
      name: "ctx",
      version: "2.0.0",
      description: "Docs lookup",
      author: { name: "A" },
      keywords: ["docs"],
      hooks: "./hooks/hooks.json",
    });
  });

  it("generates the Claude manifest from the Codex one, with the description from its interface", async () => {
    const codex = {
      name: "cx",
      version: "1",
      interface: { displayName: "CX", longDescription: "Long text" },
      apps: ["x"],
    };
    expect(await extractPackage(await pluginZip("cx", { claude: null, codex }), "plugin", dest)).toEqual({
      ok: true,
    });
    expect(await read(".claude-plugin/plugin.json")).toEqual({
      name: "cx",
      version: "1",
      description: "Long text",
    });
    expect(await read(".codex-plugin/plugin.json")).toEqual(codex);
  });

  it("requires a non-empty name in each manifest and matching names across both", async () => {
    expect(await extractPackage(await pluginZip("x", { claude: { name: " " } }), "plugin", dest)).toEqual({
      ok: false,
      error: ".claude-plugin/plugin.json must include a non-empty name",
    });
    await fs.rm(dest, { recursive: true });
    await fs.mkdir(dest);
    expect(
      await extractPackage(await pluginZip("x", { claude: null, codex: { version: "1" } }), "plugin", dest),
    ).toEqual({
      ok: false,
      error: ".codex-plugin/plugin.json must include a non-empty name",
    });
    await fs.rm(dest, { recursive: true });
    await fs.mkdir(dest);
    expect(
      await extractPackage(
        await pluginZip("x", { claude: { name: "a" }, codex: { name: "b" } }),
        "plugin",
        dest,
      ),
    ).toEqual({
      ok: false,
      error: "Codex and Claude Code plugin manifest names must match",
    });
  });
});
