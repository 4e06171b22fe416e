import { describe, expect, it } from "vitest";
import { isSafeSegment, parseSyncPayload } from "../../../src/core/capabilities/payload.js";

const ok = (raw: unknown) => {
  const result = parseSyncPayload(raw);
  if (!result.ok) throw new Error(`expected a valid payload, got ${result.error}`);
  return result.payload;
};
const error = (raw: unknown) => {
  const result = parseSyncPayload(raw);
  return result.ok ? null : result.error;
};

describe("sync payload validation (device-protocol.md §7.1)", () => {
  it("refuses a payload that is not an object, or whose lists are not arrays", () => {
    for (const raw of [null, "replace", 42, ["replace"]])
      expect(error(raw)).toBe("Invalid capability sync payload");
    expect(error({ mode: "merge", skills: {} })).toBe("Invalid capability sync payload");
    expect(error({ mode: "merge", plugins: "x" })).toBe("Invalid capability sync payload");
    expect(error({ mode: "merge", mcps: [5] })).toBe("Invalid capability sync payload");
  });

  it("accepts only the modes merge and replace; a missing mode is invalid too", () => {
    expect(error({})).toBe("Invalid sync mode");
    expect(error({ mode: "MERGE" })).toBe("Invalid sync mode");
    expect(error({ mode: "sync" })).toBe("Invalid sync mode");
    expect(ok({ mode: "merge" })).toEqual({ mode: "merge", skills: [], plugins: [], mcps: [] });
    expect(ok({ mode: "replace", skills: null }).skills).toEqual([]);
  });

  it("requires skill names and ids, and takes `id` when `skill_id` is absent", () => {
    expect(error({ mode: "merge", skills: [{ skill_id: 1 }] })).toBe("Skill name is required");
    expect(error({ mode: "merge", skills: [{ name: "", skill_id: 1 }] })).toBe("Skill name is required");
    expect(error({ mode: "merge", skills: [{ name: "a" }] })).toBe("Skill id is required");
    expect(error({ mode: "merge", skills: [{ name: "a", skill_id: "x1" }] })).toBe("Skill id is required");
    expect(error({ mode: "merge", skills: [{ name: "a", skill_id: 1.5 }] })).toBe("Skill id is required");
    expect(ok({ mode: "merge", skills: [{ name: "a", id: "42" }] }).skills[0]).toMatchObject({
      skillId: 42,
      namespace: "default",
    });
  });

  it("normalises the content hash: trimmed, quotes stripped, sha256: prefix added", () => {
    const skill = (extra: Record<string, unknown>) =>
      ok({ mode: "merge", skills: [{ name: "a", skill_id: 1, ...extra }] }).skills[0];
    expect(skill({ content_hash: ' "abc" ' })?.contentHash).toBe("sha256:abc");
    expect(skill({ contentHash: "sha256:abc" })?.contentHash).toBe("sha256:abc");
    expect(skill({ file_hash: "def" })?.contentHash).toBe("sha256:def");
    expect(skill({ fileHash: "fed" })?.contentHash).toBe("sha256:fed");
    expect(skill({ content_hash: "  " })?.contentHash).toBeUndefined();
  });

  it("fills plugin defaults: marketplace from source or wegent, version latest, enabled true, id from `id`", () => {
    const [a, b, c] = ok({
      mode: "merge",
      plugins: [
        { name: "p1", marketplace: "mp" },
        { name: "p2", source: { marketplace: "from-source" }, id: 9, enabled: false },
        { name: "p3", marketplace: null, version: null },
      ],
    }).plugins;
    expect(a).toMatchObject({
      name: "p1",
      marketplace: "mp",
      version: "latest",
      enabled: true,
      key: "p1@mp",
    });
    expect(a?.installedPluginId).toBeUndefined();
    expect(b).toMatchObject({
      marketplace: "from-source",
      installedPluginId: 9,
      enabled: false,
      key: "p2@from-source",
    });
    expect(c).toMatchObject({ marketplace: "wegent", version: "latest", key: "p3@wegent" });
    expect(error({ mode: "merge", plugins: [{ marketplace: "x" }] })).toBe("Plugin name is required");
  });

  it("requires MCP names and keeps the server object as given ({} when absent)", () => {
    expect(error({ mode: "merge", mcps: [{ server: {} }] })).toBe("MCP name is required");
    const [docs, bare] = ok({
      mode: "merge",
      mcps: [{ installed_mcp_id: 7, name: "docs", server: { type: "sse", url: "u" } }, { name: "bare" }],
    }).mcps;
    expect(docs).toMatchObject({ name: "docs", installedMcpId: 7, server: { type: "sse", url: "u" } });
    expect(bare?.server).toEqual({});
  });

  it("refuses every unsafe path segment with the offending value", () => {
    const unsafe = [
      ".",
      "..",
      "a/b",
      "a\\b",
      "a\0b",
      "tab\there",
      "<x>",
      "a:b",
      'q"',
      "p|q",
      "what?",
      "star*",
      " lead",
      "trail ",
      "dot.",
      "x".repeat(201),
    ];
    for (const value of unsafe) {
      expect(isSafeSegment(value)).toBe(false);
      expect(error({ mode: "merge", skills: [{ name: value, skill_id: 1 }] })).toBe(
        `Unsafe capability name: ${value}`,
      );
    }
    expect(error({ mode: "merge", skills: [{ name: "ok", skill_id: 1, namespace: "../up" }] })).toBe(
      "Unsafe capability name: ../up",
    );
    expect(error({ mode: "merge", plugins: [{ name: "p", marketplace: "m/x" }] })).toBe(
      "Unsafe capability name: m/x",
    );
    expect(error({ mode: "merge", plugins: [{ name: "p", version: ".." }] })).toBe(
      "Unsafe capability name: ..",
    );
    for (const value of ["browser", "中文技能", "a.b", "x".repeat(200), "v1.2.3-rc"])
      expect(isSafeSegment(value)).toBe(true);
  });

  it("marks a repeated skill name, plugin key or MCP name so only the later item fails", () => {
    const payload = ok({
      mode: "merge",
      skills: [
        { name: "a", skill_id: 1 },
        { name: "a", skill_id: 2 },
      ],
      plugins: [
        { name: "p", marketplace: "m" },
        { name: "p", marketplace: "other" },
        { name: "p", marketplace: "m" },
      ],
      mcps: [{ name: "x" }, { name: "x" }],
    });
    expect(payload.skills.map((s) => s.duplicate)).toEqual([false, true]);
    expect(payload.plugins.map((p) => p.duplicate)).toEqual([false, false, true]);
    expect(payload.mcps.map((m) => m.duplicate)).toEqual([false, true]);
  });
});
