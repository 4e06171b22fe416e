// The approvals file's schemas live in src/shared/schemas/approvals.ts (one home for every shape that
// crosses a boundary); the built-in settings and presets the policy code applies stay here.
import type { PolicySettings } from "../../shared/schemas/approvals.js";

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
