// How protected the machine is right now (issue 16 "Status and settings"): the banner that leads every
// screen when the approvals file is invalid (every command is denied until it is fixed), and the
// protection mode Status opens with — the preset, what happens to a command no entry covers, and what
// happens when nobody answers — with the next step where one is needed.
import type { AllowlistState, Screen } from "../../../src/ipc/contract.js";
import { useRemote } from "../bridge.js";
import { ASK_WORDS, FALLBACK_WORDS, SECURITY_WORDS, timeLeft, timeOfDay } from "../words.js";
import { Button } from "./buttons.js";
import { CopyText, KeyValue, Message, Pill, type Tone } from "./common.js";

const PRESET_WORDS: Record<NonNullable<AllowlistState["preset"]>, { label: string; tone: Tone }> = {
  locked: { label: "Locked: nothing runs", tone: "good" },
  ask: { label: "Ask me: the allowlist runs, anything else waits for you", tone: "good" },
  trust: { label: "Trust this machine: every command runs without asking", tone: "bad" },
};

export function useProtection() {
  return useRemote("allowlist.get", {}, ["allowlist.changed"]);
}

/** Leads every screen while the approvals file is invalid; nothing otherwise. */
export function ApprovalsFileBanner(props: {
  data: AllowlistState | null;
  onOpen?: (screen: Screen) => void;
}) {
  const file = props.data?.file;
  if (!file || file.status !== "invalid") return null;
  return (
    <div className="top-banner" role="alert">
      <strong>The approvals file is invalid: every command is denied until it is fixed.</strong>
      <span>{file.error}</span>
      <span className="top-banner-actions">
        <CopyText text={file.path} label="approvals file path" reveal />
        {props.onOpen ? (
          <Button small onClick={() => props.onOpen?.("allowlist")}>
            Open Allowlist
          </Button>
        ) : null}
      </span>
    </div>
  );
}

/** The protection mode for every agent without its own settings. */
export function ProtectionSummary(props: {
  data: AllowlistState;
  onOpen: (screen: Screen) => void;
  /** Elevations still running (status.get): they override the preset while they last. */
  elevated?: ReadonlyArray<{ agentId: string; until: number }>;
  now?: number;
}) {
  const { data } = props;
  const now = props.now ?? Date.now();
  const elevated = (props.elevated ?? []).filter((e) => e.until > now);
  const everyone = elevated.find((e) => e.agentId === "*");
  const all = data.agents.find((a) => a.id === "*")?.effective ?? { ...data.builtIn, ...data.defaults };
  const preset = data.preset ? PRESET_WORDS[data.preset] : null;
  const invalid = data.file.status === "invalid";
  // No preset chosen yet (no defaults written): the built-in settings, which are Locked.
  const fresh = !invalid && Object.keys(data.defaults).length === 0 && data.preset === "locked";
  return (
    <>
      <p className="state-line">
        {invalid ? (
          <Pill tone="bad">Every command is denied</Pill>
        ) : everyone ? (
          <Pill tone="bad">Elevated: every command runs without asking</Pill>
        ) : (
          <Pill tone={preset?.tone ?? "neutral"}>{preset?.label ?? "Custom settings"}</Pill>
        )}
      </p>
      {!invalid && elevated.length > 0 ? (
        // While elevated, the preset below is not what happens: say what does, and when it stops.
        <Message tone="warn">
          {everyone
            ? `Elevated mode: every agent runs every command without asking for ${timeLeft(everyone.until - now)} (until ${timeOfDay(everyone.until)}). The preset below applies again when it ends.`
            : `Elevated mode: ${elevated.map((e) => `agent ${e.agentId} runs every command without asking for ${timeLeft(e.until - now)} (until ${timeOfDay(e.until)})`).join("; ")}. Every other agent follows the preset below.`}
        </Message>
      ) : null}
      {all.askFallback === "full" && !invalid ? (
        <Message tone="warn">
          If nobody answers an approval in time, the command runs anyway (askFallback: full).
        </Message>
      ) : null}
      {fresh ? (
        <p className="muted">
          Gatehouse starts locked: nothing runs until you choose a preset. Ask me is recommended.
        </p>
      ) : null}
      <KeyValue
        rows={[
          ["Commands", SECURITY_WORDS[all.security].help],
          // What does not apply is not said: nothing runs, so nothing is asked (and no answer awaited).
          [
            "Asking",
            all.security === "deny" ? "Never: nothing runs, so nothing is asked." : ASK_WORDS[all.ask].help,
          ],
          ...(all.security === "deny" || all.ask === "off"
            ? []
            : [["No answer", FALLBACK_WORDS[all.askFallback].help] as [string, string]]),
        ]}
      />
      <div className="button-row">
        <Button onClick={() => props.onOpen("settings")}>Change the preset</Button>
        <Button onClick={() => props.onOpen("allowlist")}>Edit the allowlist</Button>
      </div>
    </>
  );
}
