// The approvals file's schemas live in src/shared/schemas/approvals.ts (one home for every shape that
// crosses a boundary); the built-in settings and presets the policy code applies stay here.
import type { PolicySettings } from "../../shared/schemas/approvals.js";
import { presetInEffect, type PresetName } from "./presets.js";

export * from "../../shared/schemas/approvals.js";

/** Built-in settings: safe by default, nothing runs until the user picks a mode. */
export const BUILT_IN_SETTINGS = {
  security: "deny",
  ask: "on-miss",
  askFallback: "deny",
} as const satisfies Required<Pick<PolicySettings, "security" | "ask" | "askFallback">>;

export {
  PRESETS,
  PRESET_NAMES,
  presetChoices,
  presetList,
  presetInEffect,
  presetMatching,
  type Preset,
  type PresetName,
} from "./presets.js";

/**
 * The preset every agent without settings of its own is in: `defaults` over the built-in settings (a fresh
 * file has none: the built-in deny, which is Locked), recognised by what it does (presetInEffect). Status,
 * Settings and `gatehouse init` all name it from here.
 */
export function presetOfDefaults(defaults: PolicySettings | undefined): PresetName | null {
  return presetInEffect({
    security: defaults?.security ?? BUILT_IN_SETTINGS.security,
    ask: defaults?.ask ?? BUILT_IN_SETTINGS.ask,
    askFallback: defaults?.askFallback ?? BUILT_IN_SETTINGS.askFallback,
  });
}
