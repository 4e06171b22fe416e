// The preset table is the one place a preset is declared: the store applies it, the CLI and the
// settings screen read its words, and the IPC contract's enum is built from it.
import fs from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ApprovalsStore,
  PRESET_NAMES,
  PRESETS,
  presetChoices,
  presetList,
  presetInEffect,
  presetMatching,
  BUILT_IN_SETTINGS,
} from "../../../src/core/approvals/index.js";
import { PresetNameSchema } from "../../../src/ipc/contract.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let store: ApprovalsStore;
beforeEach(async () => {
  t = await makeTempHome("gatehouse-presets-");
  store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
});
afterEach(async () => t.cleanup());

describe("policy presets", () => {
  for (const name of PRESET_NAMES) {
    it(`applying ${name} writes its settings to defaults, and the file is then recognised as ${name}`, async () => {
      await store.ensure();
      await store.applyPreset(name);
      const file = JSON.parse(await fs.readFile(t.paths.approvals, "utf8")) as { defaults: object };
      expect(file.defaults).toMatchObject(PRESETS[name].settings);
      expect(presetMatching(file.defaults)).toBe(name);
    });
  }

  it("gives every preset a label and a one-sentence description, and recommends exactly one", () => {
    const list = presetList();
    expect(list.map((p) => p.id)).toEqual(PRESET_NAMES);
    for (const p of list) {
      expect(p.label.trim()).not.toBe("");
      expect(p.description).toMatch(/^[A-Z].*\.$/);
    }
    expect(list.filter((p) => p.recommended)).toHaveLength(1);
  });

  it("is the list the IPC contract accepts, and the one error messages offer", () => {
    for (const name of PRESET_NAMES) expect(PresetNameSchema.parse(name)).toBe(name);
    expect(PresetNameSchema.safeParse("yolo").success).toBe(false);
    expect(presetChoices()).toBe("locked, ask or trust");
  });

  it("recognises a preset by what it does: security deny is Locked whatever ask says (nothing runs)", () => {
    expect(presetInEffect({ ...BUILT_IN_SETTINGS })).toBe("locked");
    expect(presetInEffect({ security: "deny", ask: "always", askFallback: "full" })).toBe("locked");
    expect(presetInEffect({ security: "allowlist", ask: "on-miss", askFallback: "deny" })).toBe("ask");
    expect(presetInEffect({ security: "allowlist", ask: "always", askFallback: "deny" })).toBeNull();
  });

  it("recognises no preset in settings that match none", () => {
    expect(presetMatching({ security: "allowlist", ask: "always", askFallback: "deny" })).toBeNull();
    expect(presetMatching(undefined)).toBeNull();
  });
});
