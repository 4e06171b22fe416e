// The frontmatter fast path must agree with the real YAML parser on every document it accepts.
import fc from "fast-check";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { parseSimpleFrontmatter, resolvePlain } from "../../../src/core/skills/simple-yaml.js";

function viaYaml(text: string): { ok: true; value: unknown } | { ok: false } {
  const doc = parseDocument(text, { schema: "core", uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return { ok: false };
  return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
}

const TRICKY_VALUES = [
  "1",
  "1.0",
  "1.10",
  "0x1F",
  "0o17",
  "+5",
  "-3",
  ".5",
  "1.",
  "1e3",
  "1.5E+3",
  "-0",
  ".inf",
  "-.Inf",
  ".nan",
  "~",
  "null",
  "Null",
  "NULL",
  "true",
  "False",
  "yes",
  "no",
  "on",
  "12345678901234567890",
  "hello world",
  "a: b",
  "a:b",
  "a #c",
  "a#c",
  "value:",
  "-lead",
  "- item",
  "? x",
  "!tag x",
  "&a x",
  "*a",
  "%x",
  "@x",
  "`x",
  "a [b]",
  "a, b",
  "{a}",
  "[a, b]",
  "[a, b,]",
  "[ ]",
  "[]",
  "[1, 2.5, true, null, x y]",
  "[a, [b]]",
  "[a: b]",
  "[a,,b]",
  "[-1, .5]",
  '["a", "b"]',
  '{"a": 1, "a": 2}',
  '{"openclaw":{"requires":{"bins":["uv","nope"]},"emoji":"🔧"}}',
  '{"__proto__": 1}',
  '{"a":"b\\"c:d"}',
  '"dq"',
  '"esc \\n \\t \\u00e9 \\/ \\\\"',
  '"bad \\q"',
  '"x" "y"',
  "'sq ''x'' y'",
  "'unterminated",
  "''",
  '""',
  "|",
  "|-",
  "|+",
  ">",
  ">-",
  "",
  "é ü 😀",
  "\u0085x",
  "x\u2028y",
  "a\u0001b",
  "\uFEFFbom",
  "tab\there",
  "{a: 1}",
  "{}",
  "[{}]",
  "a ]",
  "x,y,z",
  "Use when: testing",
  "file_read, shell_exec",
  " leading",
  "trailing  ",
];
const KEYS = ["name", "description", "version", "tags", "a-b", "x_y", "true", "null", "on", "Name", "k1"];

const valueArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY_VALUES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom("a", " ", ":", "#", "-", "[", "]", ",", "'", '"', "{", "}", "1", "."),
      maxLength: 10,
    }),
  },
);
const blockLineArb = fc.oneof(
  fc.constantFrom(
    "  line one",
    "  line two",
    "    deeper",
    "",
    "  ",
    "     ",
    "\tTab",
    " one space",
    "  # not a comment",
    "  key: v",
  ),
  fc.string({ maxLength: 8 }).map((s) => `  ${s}`),
);
const lineArb = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...KEYS), valueArb).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.constantFrom(...KEYS).map((k) => `${k}:`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "# comment",
      "",
      "  continued",
      "- item",
      "  - nested",
      "key:value",
      "%YAML 1.2",
      "...",
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...KEYS), fc.constantFrom("|", "|-"), fc.array(blockLineArb, { maxLength: 4 }))
      .map(([k, b, lines]) => [`${k}: ${b}`, ...lines].join("\n")),
  },
);

describe("frontmatter fast path", () => {
  it("returns exactly what the yaml package returns, whenever it accepts a document", () => {
    const runs = Number(process.env.SIMPLE_YAML_RUNS ?? 20_000);
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 8 }), (lines) => {
        const text = lines.join("\n");
        const fast = parseSimpleFrontmatter(text);
        if (fast === null) return;
        accepted++;
        const slow = viaYaml(text);
        expect(slow.ok, `yaml rejects what the fast path accepted:\n${text}`).toBe(true);
        if (slow.ok) expect(fast.values, text).toEqual(slow.value ?? {});
      }),
      { numRuns: runs },
    );
    // The comparison only means something if the fast path takes a fair share of the documents.
    expect(accepted).toBeGreaterThan(runs / 20);
  });

  it("accepts the usual skill frontmatter shapes", () => {
    const usual = [
      "name: pdf-tools",
      "description: Fill & sign PDF forms.",
      "version: 1.10",
      "permissions: [file_read, shell_exec]",
      'metadata: {"openclaw":{"requires":{"bins":["uv"]}}}',
      "description2: |",
      "  line one",
      "  line two",
      "",
      "# a comment",
      "user-invocable: no",
    ].join("\n");
    const fast = parseSimpleFrontmatter(usual);
    expect(fast?.values).toEqual(viaYaml(usual).ok ? (viaYaml(usual) as { value: unknown }).value : null);
    expect(fast?.plainText.version).toBe("1.10");
  });

  it("resolves plain scalars with the core schema", () => {
    expect([
      resolvePlain("0x1F"),
      resolvePlain("0o17"),
      resolvePlain(".inf"),
      resolvePlain("yes"),
      resolvePlain("~"),
    ]).toEqual([31, 15, Infinity, "yes", null]);
  });
});
