import { describe, expect, it } from "vitest";
import { canonicalJson, compareCodePoints } from "../../../src/core/capabilities/canonical-json.js";
import { capabilityDigest, emptyReport, parseFrontMatter } from "../../../src/core/capabilities/io/report.js";

describe("capability digest (device-protocol.md §5)", () => {
  it("D1: a fresh device with nothing synced has the empty digest", () => {
    expect(capabilityDigest({ skills: [], plugins: [], mcps: [] })).toBe(
      "sha256:cfb9cc611aec1065653dcdc7afdab315ff3742b4c0747ba175a6490db104cbab",
    );
    expect(emptyReport()).toEqual({
      revision: 0,
      digest: "sha256:cfb9cc611aec1065653dcdc7afdab315ff3742b4c0747ba175a6490db104cbab",
      full: true,
      skills: [],
      plugins: [],
      mcps: [],
      last_sync_at: null,
    });
  });

  it("D2: keys are sorted at every level and the digest matches the worked example", () => {
    const input = {
      skills: [{ name: "browser", skill_id: 1336, namespace: "default", source: "wegent" }],
      plugins: [
        {
          name: "context7",
          marketplace: "claude-plugins-official",
          version: "1057d02c5307",
          source: "wegent",
        },
      ],
      mcps: [
        {
          name: "docs",
          installed_mcp_id: 7,
          server: { type: "streamable-http", url: "https://mcp.example.com/docs" },
          source: "wegent",
        },
      ],
    };
    expect(canonicalJson({ mcps: input.mcps, plugins: input.plugins, skills: input.skills })).toBe(
      '{"mcps":[{"installed_mcp_id":7,"name":"docs","server":{"type":"streamable-http","url":"https://mcp.example.com/docs"},"source":"wegent"}],"plugins":[{"marketplace":"claude-plugins-official","name":"context7","source":"wegent","version":"1057d02c5307"}],"skills":[{"name":"browser","namespace":"default","skill_id":1336,"source":"wegent"}]}',
    );
    expect(capabilityDigest(input)).toBe(
      "sha256:dd7ea77c5f8421b38b88579df9948e64ca114d681bd84508a621527f572d8556",
    );
  });

  it("D5: non-ASCII names are hashed as raw UTF-8, not \\u escapes", () => {
    const skills = [{ name: "中文技能", source: "local_user" }];
    expect(canonicalJson({ mcps: [], plugins: [], skills })).toBe(
      '{"mcps":[],"plugins":[],"skills":[{"name":"中文技能","source":"local_user"}]}',
    );
    expect(capabilityDigest({ skills, plugins: [], mcps: [] })).toBe(
      "sha256:e1f7e0aefad580f69c1a3808e5c671cb3b2d44bd7caa22e4a7e4734b9f5e9ff0",
    );
  });

  it("sorts by code point, so characters above U+FFFF come after U+FFFF unlike the default sort", () => {
    const names = ["\u{1F600}", "\uFFFD", "b", "a", "\u00e9"];
    expect([...names].sort()).toEqual(["a", "b", "\u00e9", "\u{1F600}", "\uFFFD"]); // UTF-16 order
    expect([...names].sort(compareCodePoints)).toEqual(["a", "b", "\u00e9", "\uFFFD", "\u{1F600}"]);
    expect(compareCodePoints("ab", "abc")).toBeLessThan(0);
  });

  it("writes integer-like keys in code-point order, where JSON.stringify would put them first numerically", () => {
    expect(canonicalJson({ b: 1, "10": 2, "9": 3, a: [{ z: "/", y: null }] })).toBe(
      '{"10":2,"9":3,"a":[{"y":null,"z":"/"}],"b":1}',
    );
  });

  it("reads plain key: value front matter between the first two --- lines and strips quotes", () => {
    expect(
      parseFrontMatter("---\nname: \"pdf\"\ndescription: 'Read PDFs'\nother: x: y\n---\nname: no\n"),
    ).toEqual({
      name: "pdf",
      description: "Read PDFs",
      other: "x: y",
    });
    expect(parseFrontMatter("no front matter")).toEqual({});
  });
});
