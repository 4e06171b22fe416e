import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { readJsonFile, updateJsonFile, writeFileAtomic, writeJsonFile } from "../../src/core/store/index.js";
import { makeTempHome, type TempHome } from "../support/temp-home.js";

const Counter = z.object({ n: z.number() });
let t: TempHome;
beforeEach(async () => (t = await makeTempHome()));
afterEach(async () => t.cleanup());

describe("store", () => {
  it("writes files 0600 in a new 0700 folder", async () => {
    const file = path.join(t.home, "new-dir", "a.json");
    await writeJsonFile(file, Counter, { n: 1 });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(await readJsonFile(file, Counter)).toEqual({ status: "ok", value: { n: 1 } });
  });

  it("refuses to write through a symlink or a hard link and leaves the target alone", async () => {
    const target = path.join(t.home, "target.txt");
    await fs.writeFile(target, "keep");
    const link = path.join(t.home, "link.json");
    await fs.symlink(target, link);
    await expect(writeFileAtomic(link, "x")).rejects.toThrow(/symbolic link/);
    const hard = path.join(t.home, "hard.json");
    await fs.link(target, hard);
    await expect(writeFileAtomic(hard, "x")).rejects.toThrow(/hard link/);
    expect(await fs.readFile(target, "utf8")).toBe("keep");
  });

  it("reports an invalid file with the schema error and never overwrites it", async () => {
    const file = path.join(t.home, "bad.json");
    await fs.writeFile(file, '{"n":"one"}');
    const read = await readJsonFile(file, Counter);
    expect(read.status).toBe("invalid");
    await expect(
      updateJsonFile(
        file,
        Counter,
        () => ({ n: 0 }),
        (c) => ({ value: { n: c.n + 1 }, result: undefined }),
      ),
    ).rejects.toThrow(/bad\.json is invalid: n:/);
    expect(await fs.readFile(file, "utf8")).toBe('{"n":"one"}');
  });

  it("serialises concurrent read-modify-write updates without losing any", async () => {
    const file = path.join(t.home, "counter.json");
    await Promise.all(
      Array.from({ length: 50 }, () =>
        updateJsonFile(
          file,
          Counter,
          () => ({ n: 0 }),
          (c) => ({ value: { n: c.n + 1 }, result: undefined }),
        ),
      ),
    );
    expect(await readJsonFile(file, Counter)).toEqual({ status: "ok", value: { n: 50 } });
    const leftovers = (await fs.readdir(t.home)).filter(
      (f) => f.includes("gatehouse-") || f.endsWith(".lock"),
    );
    expect(leftovers).toEqual([]);
  });
});
