// Table-wise edits of Codex's config.toml (toml-tables.ts): only the named tables change, the user's
// comments, order and other tables stay as written, and text that cannot be edited that way is refused
// with the reason instead of being rewritten.
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { editTomlTables } from "../../../src/core/capabilities/io/toml-tables.js";

const USER = `# my settings
model = "o3" # inline comment

[marketplaces.mine]
source_type = "local"
source = "/home/me/mp"

[plugins."lint@mine"]
enabled = true

# the work profile follows
[profiles.work]
model = "gpt-5"
`;

describe("editing config.toml table by table", () => {
  it("appends new tables after the user's text and removes them again to the exact original", () => {
    const added = editTomlTables(USER, {
      remove: [],
      set: [
        { path: ["marketplaces", "gh"], values: { source_type: "local", source: "/e/gh" } },
        { path: ["plugins", "ctx@gh"], values: { enabled: false } },
      ],
    });
    expect(added).toMatchObject({ ok: true, changed: true });
    const text = (added as { text: string }).text;
    expect(text.startsWith(USER)).toBe(true);
    expect(parseToml(text)).toMatchObject({
      model: "o3",
      marketplaces: { mine: { source: "/home/me/mp" }, gh: { source_type: "local", source: "/e/gh" } },
      plugins: { "lint@mine": { enabled: true }, "ctx@gh": { enabled: false } },
    });

    const removed = editTomlTables(text, {
      remove: [
        ["marketplaces", "gh"],
        ["plugins", "ctx@gh"],
      ],
      set: [],
    });
    expect(removed).toEqual({ ok: true, text: USER, changed: true });
  });

  it("leaves an empty file when Gatehouse's tables were all there was", () => {
    const ours =
      '[marketplaces.gh]\nsource_type = "local"\nsource = "/e/gh"\n\n[plugins."ctx@gh"]\nenabled = true\n';
    expect(
      editTomlTables(ours, {
        remove: [
          ["marketplaces", "gh"],
          ["plugins", "ctx@gh"],
        ],
        set: [],
      }),
    ).toEqual({
      ok: true,
      text: "",
      changed: true,
    });
  });

  it("writes nothing when the file already means what is wanted", () => {
    expect(editTomlTables(USER, { remove: [["plugins", "absent@x"]], set: [] })).toEqual({
      ok: true,
      text: USER,
      changed: false,
    });
    expect(
      editTomlTables(USER, {
        remove: [],
        set: [{ path: ["plugins", "lint@mine"], values: { enabled: true } }],
      }),
    ).toMatchObject({ changed: false });
  });

  it("replaces a table in the middle without touching the comment that belongs to the next one", () => {
    const edited = editTomlTables(USER, {
      remove: [],
      set: [{ path: ["plugins", "lint@mine"], values: { enabled: false } }],
    });
    const text = (edited as { text: string }).text;
    expect(text).toContain("# the work profile follows\n[profiles.work]");
    expect(text).not.toContain("enabled = true");
    expect(text.endsWith('[plugins."lint@mine"]\nenabled = false\n')).toBe(true);
  });

  it("refuses tables written inline, and text that is not TOML, with the reason", () => {
    const inline = 'plugins = { "x@gh" = { enabled = true } }\n';
    expect(
      editTomlTables(inline, { remove: [], set: [{ path: ["plugins", "y@gh"], values: { enabled: true } }] }),
    ).toMatchObject({ ok: false, error: expect.stringContaining("cannot be edited table by table") });
    expect(editTomlTables("model = \n", { remove: [], set: [] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("not valid TOML"),
    });
  });
});
