// Policy presets: one table holding each preset's settings and the words people read about it. The
// CLI (`gatehouse init`), the settings screen (through `settings.get`) and the IPC contract's name
// enum all read it, so a new preset is one entry here. Plain data, no imports: the renderer's
// type-check reads it through src/ipc/contract.ts.

export interface Preset {
  /** What `defaults` (or one agent) is set to. */
  settings: {
    security: "deny" | "allowlist" | "full";
    ask: "off" | "on-miss" | "always";
    askFallback: "deny" | "allowlist" | "full";
  };
  /** The name on the settings screen. */
  label: string;
  /** One sentence: what happens to a command under this preset. */
  description: string;
  /** Offered first, marked "(recommended)"; at most one preset is. */
  recommended?: boolean;
}

export const PRESETS = {
  locked: {
    settings: { security: "deny", ask: "off", askFallback: "deny" },
    label: "Locked",
    description: "Nothing runs. Commands are denied without asking.",
  },
  ask: {
    settings: { security: "allowlist", ask: "on-miss", askFallback: "deny" },
    label: "Ask me",
    description:
      "Commands on the allowlist run; anything else waits for you. If you do not answer, it is denied.",
    recommended: true,
  },
  trust: {
    settings: { security: "full", ask: "off", askFallback: "deny" },
    label: "Trust this machine",
    description: "Every command runs without asking.",
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;

/** The preset names in table order (the IPC contract's enum is built from it). */
export const PRESET_NAMES = Object.keys(PRESETS) as [PresetName, ...PresetName[]];

/** What the settings screen shows: each preset's name, label and description, in table order. */
export function presetList(): Array<{
  id: PresetName;
  label: string;
  description: string;
  recommended: boolean;
}> {
  return PRESET_NAMES.map((id) => {
    const preset: Preset = PRESETS[id];
    return {
      id,
      label: preset.label,
      description: preset.description,
      recommended: preset.recommended === true,
    };
  });
}

/** `locked, ask or trust` — for messages that list the choices. */
export function presetChoices(): string {
  const names = [...PRESET_NAMES];
  const last = names.pop();
  return names.length === 0 ? String(last) : `${names.join(", ")} or ${last}`;
}

/** The preset `settings` equals exactly, if any. */
export function presetMatching(
  settings: { security?: string; ask?: string; askFallback?: string } | undefined,
): PresetName | null {
  if (!settings) return null;
  for (const id of PRESET_NAMES) {
    const p = PRESETS[id].settings;
    if (settings.security === p.security && settings.ask === p.ask && settings.askFallback === p.askFallback)
      return id;
  }
  return null;
}

/**
 * The preset a complete set of settings behaves as (issue 32, Build 5): a preset is what happens to a
 * command, so `security: deny` is Locked whatever `ask` and `askFallback` say (nothing runs, so nothing is
 * asked and nobody's answer is waited for; policy/decide.ts denies before it looks at them). That makes a
 * fresh install, whose file has no `defaults` (the built-in deny, ask on-miss), read as Locked — the
 * design's "nothing runs until the user picks a mode" — on Status and Settings alike. Otherwise exact.
 */
export function presetInEffect(settings: {
  security: string;
  ask: string;
  askFallback: string;
}): PresetName | null {
  if (settings.security === "deny") return "locked";
  return presetMatching(settings);
}
