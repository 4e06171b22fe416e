// Effective settings for an agent (exec-policy.md "Where settings come from"): field by field from
// agents[agentId], agents["*"], defaults, built-in; then elevated mode (security=full while it lasts);
// then a request may only tighten them — one that asks for something looser is refused whole.
// An unproven agent id (docs/decisions.md "Proven identity") gets the least-trusted agent's settings.
import {
  BUILT_IN_SETTINGS,
  CLOCK_SLACK_MS,
  type ApprovalsState,
  type PolicySettings,
} from "../approvals/index.js";
import type {
  Ask,
  EffectiveSettings,
  Identity,
  RequestedSettings,
  Security,
  SettingSource,
} from "./types.js";

const SECURITY_ORDER: Record<Security, number> = { deny: 0, allowlist: 1, full: 2 };
const ASK_ORDER: Record<Ask, number> = { off: 0, "on-miss": 1, always: 2 };

/** The stricter of two security levels (deny < allowlist < full). */
export function minSecurity(a: Security, b: Security): Security {
  return SECURITY_ORDER[a] <= SECURITY_ORDER[b] ? a : b;
}

/** The stricter of two ask levels (off < on-miss < always). */
export function maxAsk(a: Ask, b: Ask): Ask {
  return ASK_ORDER[a] >= ASK_ORDER[b] ? a : b;
}

/** The running elevation of `agentId` (its own, else `*`'s; the later end wins), or null. */
export function activeElevation(
  approvals: ApprovalsState,
  agentId: string,
  now: number,
): { agentId: string; until: number } | null {
  if (approvals.status !== "ok" || !approvals.file.elevated) return null;
  let best: { agentId: string; until: number } | null = null;
  for (const name of agentId === "*" ? ["*"] : [agentId, "*"]) {
    const elevation = approvals.file.elevated[name];
    // a clock set back before the elevation began would stretch it: it does not count then (issue 30)
    if (
      elevation &&
      elevation.until > now &&
      now + CLOCK_SLACK_MS >= elevation.since &&
      (!best || elevation.until > best.until)
    )
      best = { agentId: name, until: elevation.until };
  }
  return best;
}

type Configured = Pick<EffectiveSettings, "security" | "ask" | "askFallback" | "sources">;

/** What the approvals file gives `agentId`, field by field: agents[agentId], agents["*"], defaults, built-in. */
function configuredSettings(approvals: ApprovalsState, agentId: string): Configured {
  const layers: { source: SettingSource; settings: PolicySettings | undefined }[] = [];
  if (approvals.status === "ok") {
    const { file } = approvals;
    layers.push({ source: `agents.${agentId}`, settings: file.agents[agentId] });
    if (agentId !== "*") layers.push({ source: "agents.*", settings: file.agents["*"] });
    layers.push({ source: "defaults", settings: file.defaults });
  }
  const pick = <K extends "security" | "ask" | "askFallback">(key: K) => {
    for (const layer of layers) {
      const value = layer.settings?.[key];
      if (value !== undefined)
        return { value: value as NonNullable<PolicySettings[K]>, source: layer.source };
    }
    return {
      value: BUILT_IN_SETTINGS[key] as NonNullable<PolicySettings[K]>,
      source: "built-in" as SettingSource,
    };
  };
  const security = pick("security");
  const ask = pick("ask");
  const askFallback = pick("askFallback");
  return {
    security: security.value,
    ask: ask.value,
    askFallback: askFallback.value,
    sources: { security: security.source, ask: ask.source, askFallback: askFallback.source },
  };
}

/**
 * The least-trusted agent (docs/decisions.md "Proven identity"): field by field, the stricter of what the
 * claimed agent is configured with and what an agent nobody named gets (agents["*"], defaults, built-in).
 * A claim can only narrow what an anonymous client gets, never widen it; on a tie the anonymous source is
 * named, since that is what bounds every unproven request.
 */
function leastTrustedSettings(approvals: ApprovalsState, claimed: string): Configured {
  const anonymous = configuredSettings(approvals, "*");
  if (claimed === "*") return anonymous;
  const own = configuredSettings(approvals, claimed);
  const security = SECURITY_ORDER[own.security] < SECURITY_ORDER[anonymous.security] ? own : anonymous;
  const ask = ASK_ORDER[own.ask] > ASK_ORDER[anonymous.ask] ? own : anonymous;
  const fallback = SECURITY_ORDER[own.askFallback] < SECURITY_ORDER[anonymous.askFallback] ? own : anonymous;
  return {
    security: security.security,
    ask: ask.ask,
    askFallback: fallback.askFallback,
    sources: {
      security: security.sources.security,
      ask: ask.sources.ask,
      askFallback: fallback.sources.askFallback,
    },
  };
}

export function resolveSettings(
  approvals: ApprovalsState,
  agentId: string,
  requested?: RequestedSettings,
  /** Elevated mode applies only with a clock (an elevation ends at its time). */
  now?: number,
  /** `unproven`: the least-trusted agent's settings, and only an every-agent (`*`) elevation. */
  identity?: Identity,
): EffectiveSettings {
  // a fresh object either way: the steps below change it in place
  const result: EffectiveSettings =
    identity === "unproven"
      ? leastTrustedSettings(approvals, agentId)
      : configuredSettings(approvals, agentId);
  const elevated = identity === "unproven" ? "*" : agentId;
  const elevation = now === undefined ? null : activeElevation(approvals, elevated, now);
  if (elevation) {
    result.security = "full";
    result.sources.security = "elevated";
    result.elevatedUntil = elevation.until;
  }
  const loosening: string[] = [];
  if (
    requested?.security !== undefined &&
    SECURITY_ORDER[requested.security] > SECURITY_ORDER[result.security]
  )
    loosening.push(`security=${requested.security} (the policy gives ${result.security})`);
  if (requested?.ask !== undefined && ASK_ORDER[requested.ask] < ASK_ORDER[result.ask])
    loosening.push(`ask=${requested.ask} (the policy gives ${result.ask})`);
  if (loosening.length > 0) result.loosening = loosening;
  if (requested?.security !== undefined) {
    const tightened = minSecurity(result.security, requested.security);
    if (tightened !== result.security) {
      result.security = tightened;
      result.sources.security = "request";
    }
  }
  if (requested?.ask !== undefined) {
    const tightened = maxAsk(result.ask, requested.ask);
    if (tightened !== result.ask) {
      result.ask = tightened;
      result.sources.ask = "request";
    }
  }
  return result;
}
