// src/shared is loaded by main, the CLI, the renderer and the sandboxed preload: it may import zod and
// its own files and nothing else (no node:*, no electron, no other layer). zod/mini is zod too: the hot
// paths' schemas use it (issue 12).
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../support/cli.js";

const SHARED = path.join(REPO_ROOT, "src/shared");

async function sourceFiles(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir, { recursive: true });
  return names.filter((name) => name.endsWith(".ts")).map((name) => path.join(dir, name));
}

describe("the shared schema module", () => {
  it("imports only zod (classic or mini) and its own files", async () => {
    const strays: string[] = [];
    for (const file of await sourceFiles(SHARED)) {
      const text = await fs.readFile(file, "utf8");
      for (const match of text.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
        const spec = match[1]!;
        const inside =
          spec.startsWith(".") && path.resolve(path.dirname(file), spec).startsWith(SHARED + path.sep);
        if (spec !== "zod" && spec !== "zod/mini" && !inside)
          strays.push(`${path.relative(REPO_ROOT, file)}: ${spec}`);
      }
    }
    expect(strays).toEqual([]);
  });
});
