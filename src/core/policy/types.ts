// The policy engine's vocabulary (exec-policy.md). Shared by the analyser, matcher, decision,
// executor, approval server, CLI and UI. The shapes that cross a boundary (explanations, prompts,
// allowlist entries) are declared once in src/shared/schemas/; this file names them for core and adds
// the ones that stay in-process.
import type { Ask, AskFallback, Security } from "../../shared/schemas/approvals.js";
import type { Flag, Segment, SettingSource } from "../../shared/schemas/explanation.js";
import type { PromptAnswer, PromptRequest } from "../../shared/schemas/prompt.js";

export type { AllowlistEntry, Ask, AskFallback, Security } from "../../shared/schemas/approvals.js";
export type {
  CommandInput,
  Explanation,
  Flag,
  FlagKind,
  FoundVia,
  Identity,
  Outcome,
  PolicyDecision,
  ProposedEntry,
  RequestedSettings,
  PosixShell,
  PosixShells,
  Segment,
  SettingSource,
  ShellKind,
} from "../../shared/schemas/explanation.js";
export type { PromptAnswer, PromptDecision, PromptRequest } from "../../shared/schemas/prompt.js";
export type { DecidedBy } from "../../shared/schemas/audit.js";

export interface Analysis {
  /** False when the parser failed; then `flags` holds a `parse-error`. */
  ok: boolean;
  segments: Segment[];
  flags: Flag[];
}

export interface EffectiveSettings {
  security: Security;
  ask: Ask;
  askFallback: AskFallback;
  sources: { security: SettingSource; ask: SettingSource; askFallback: SettingSource };
  /** Elevated mode is on for this agent until then (epoch ms); security is `full` because of it. */
  elevatedUntil?: number;
  /**
   * What the request asked to loosen (`security=full`, looser than the effective `allowlist`): such a
   * request is refused whole (outcome `deny`, reason `request-loosens`) and runs nothing.
   */
  loosening?: string[];
}

/** Asks a person; resolves with `timeout` when nobody answers by `expiresAt`. */
export type PromptFn = (prompt: PromptRequest, signal?: AbortSignal) => Promise<PromptAnswer>;
