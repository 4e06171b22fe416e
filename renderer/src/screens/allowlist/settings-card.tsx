// The three policy settings of one list (defaults, all agents or one agent): each set here or
// inherited, with the plain-words description of the value in effect. Changes are written at once.
import { useState } from "react";
import type { AgentView, AllowlistState, PolicySettings } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Notice } from "../../components/common.js";
import { SettingSelect, type SettingWords } from "../../components/select.js";
import { ASK_WORDS, FALLBACK_WORDS, SECURITY_WORDS } from "../../words.js";
import { sourceLabel } from "./labels.js";

type SettingField = "security" | "ask" | "askFallback";

const SETTINGS: Array<{ field: SettingField; label: string; words: SettingWords }> = [
  { field: "security", label: "Security", words: SECURITY_WORDS },
  { field: "ask", label: "Ask", words: ASK_WORDS },
  { field: "askFallback", label: "If nobody answers", words: FALLBACK_WORDS },
];

type Effective = AgentView["effective"];

export function SettingsCard(props: {
  /** `defaults`, `*` or an agent id. */
  target: string;
  own: PolicySettings;
  /** What applies to the agent (null for the defaults, which inherit only the built-in values). */
  effective: Effective | null;
  builtIn: AllowlistState["builtIn"];
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const set = async (field: SettingField, value: string | null) => {
    const result = await call("allowlist.setSettings", {
      agentId: props.target,
      [field]: value,
    } as never).catch((e: Error) => ({ ok: false as const, reason: e.message }));
    setProblem(result.ok ? null : result.reason);
  };
  const inherited = (field: SettingField) => {
    if (props.target === "defaults") return `${props.builtIn[field]} (built-in)`;
    if (props.effective && props.own[field] === undefined) {
      return `${props.effective[field]} (${sourceLabel(props.effective.sources[field] ?? "")})`;
    }
    return "defaults";
  };
  const effective = (field: SettingField) =>
    props.effective ? props.effective[field] : (props.own[field] ?? props.builtIn[field]);
  const idOf = (field: SettingField) => `setting-${props.target === "*" ? "all" : props.target}-${field}`;
  return (
    <div className="settings-card">
      <div className="settings-grid">
        {SETTINGS.map((s) => (
          <SettingSelect
            key={s.field}
            id={idOf(s.field)}
            label={s.label}
            own={props.own[s.field]}
            inherited={inherited(s.field)}
            words={s.words}
            effective={effective(s.field)}
            onChange={(value) => void set(s.field, value)}
          />
        ))}
      </div>
      <Notice tone="error" text={problem} />
    </div>
  );
}
