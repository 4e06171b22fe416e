// The lint config keeps src/core pure and product code away from test/ (docs/decisions.md "Core
// purity"): real ESLint with the repository's own config, on code placed at the paths it would have.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const eslint = new ESLint({ cwd: ROOT });

/** The rule ids ESLint reports for `code` as if it were the file at `file`. */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

const IO_SAMPLES = {
  "node:fs": `import fs from "node:fs";\nexport const read = (p: string) => fs.readFileSync(p, "utf8");\n`,
  "node:fs/promises": `import fs from "node:fs/promises";\nexport const read = (p: string) => fs.readFile(p, "utf8");\n`,
  setTimeout: `export const later = (f: () => void) => setTimeout(f, 10);\n`,
  setInterval: `export const tick = (f: () => void) => setInterval(f, 10);\n`,
  "AbortSignal.timeout": `export const soon = () => AbortSignal.timeout(10);\n`,
};
const NETWORK_SAMPLES = {
  "node:net": `import net from "node:net";\nexport const dial = () => net.connect(1);\n`,
  "node:child_process": `import { spawn } from "node:child_process";\nexport const run = () => spawn("ls");\n`,
  "node:http": `import http from "node:http";\nexport const serve = () => http.createServer();\n`,
  fetch: `export const get = (u: string) => fetch(u);\n`,
};

describe("core purity lint", () => {
  it("passes a pure core file that only computes", async () => {
    expect(
      await problems("src/core/policy/sample.ts", `export const twice = (n: number) => n * 2;\n`),
    ).toEqual([]);
  });

  for (const [what, code] of Object.entries({ ...IO_SAMPLES, ...NETWORK_SAMPLES })) {
    it(`fails a pure core file that uses ${what}`, async () => {
      for (const file of [
        "src/core/policy/sample.ts",
        "src/core/approvals/sample.ts",
        "src/core/sample.ts",
      ]) {
        expect((await problems(file, code)).join("\n")).toMatch(/no-restricted-(imports|globals|properties)/);
      }
    });
  }

  for (const [what, code] of Object.entries(IO_SAMPLES)) {
    it(`lets an io/ folder and the file store use ${what}`, async () => {
      expect(await problems("src/core/workdir/io/sample.ts", code)).toEqual([]);
      expect(await problems("src/core/store/sample.ts", code)).toEqual([]);
    });
  }

  for (const [what, code] of Object.entries(NETWORK_SAMPLES)) {
    it(`fails an io/ folder that uses ${what} (core never opens sockets or runs programs)`, async () => {
      expect((await problems("src/core/capabilities/io/sample.ts", code)).join("\n")).toMatch(
        /no-restricted-(imports|globals)/,
      );
    });
  }

  it("fails core code that imports another layer", async () => {
    const code = `import { x } from "../../device/deps.js";\nexport const y = x;\n`;
    expect((await problems("src/core/policy/sample.ts", code)).join("\n")).toMatch(/no-restricted-imports/);
    expect((await problems("src/core/policy/io/sample.ts", code)).join("\n")).toMatch(
      /no-restricted-imports/,
    );
  });
});

describe("product code never imports test/", () => {
  const cases: Array<[string, string]> = [
    ["src/cli/commands/sample.ts", "../../../test/support/archives.js"],
    ["src/core/policy/sample.ts", "../../../test/support/archives.js"],
    ["src/services-sample.ts", "../test/backend/server.js"],
    ["renderer/src/screens/sample.tsx", "../../../test/support/e2e-app.js"],
  ];
  for (const [file, spec] of cases) {
    it(`fails ${file} importing ${spec}`, async () => {
      const code = `import { x } from "${spec}";\nexport const y = x;\n`;
      expect((await problems(file, code)).join("\n")).toMatch(/no-restricted-imports.*test\//);
    });
  }

  it("lets tests import product code", async () => {
    const code = `import { x } from "../../src/demo-backend/zip.js";\nexport const y = x;\n`;
    expect(await problems("test/support/sample.ts", code)).toEqual([]);
  });
});
