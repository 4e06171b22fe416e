// The shapes the catalogue reports (skills.md §7) and hands to agent runs (§10).

export type RootKind =
  | "workspace-clawseed"
  | "workspace-claude"
  | "workspace"
  | "user-clawseed"
  | "user-claude"
  | "user-codex"
  | "plugin"
  | "extra"
  | "bundled";

/** One root as listed in the catalogue. */
export interface SkillRoot {
  rank: number;
  kind: RootKind;
  /** `workspace`, `user`, `codex`, `plugin:<key>` or `extra`. */
  source: string;
  path: string;
  /** The root with links resolved; null when it does not exist. */
  realpath: string | null;
  exists: boolean;
  error: string | null;
  /** Skill folders found in this root. */
  count: number;
  /** Plugin key for rank 7 roots. */
  plugin?: string;
}

export interface SkillRequires {
  bins: string[];
  anyBins: string[];
  env: string[];
  config: string[];
}

export interface SkillDetails {
  version: string | null;
  author: string | null;
  category: string | null;
  license: string | null;
  tags: string[];
  homepage: string | null;
  emoji: string | null;
  install: unknown;
  user_invocable: boolean;
  disable_model_invocation: boolean;
  always: boolean;
  os: string[] | null;
  requires: SkillRequires;
  primary_env: string | null;
  config_key: string;
  config: {
    enabled: boolean | null;
    env_names: string[];
    api_key_set: boolean;
    allow_workspace: boolean;
  };
  /** Other frontmatter keys (`allowed-tools`, `model`, …), kept as written. */
  extra: Record<string, unknown>;
}

/** One skill folder found in one root (skills.md §7). */
export interface SkillEntry {
  name: string;
  description: string;
  root: string;
  rank: number;
  kind: RootKind;
  source: string;
  path: string;
  realpath: string;
  skill_file: string;
  valid: boolean;
  errors: string[];
  warnings: string[];
  eligible: boolean;
  reasons: string[];
  shadowed_by: string | null;
  offered: boolean;
  permissions: string[];
  triggers: string[];
  cost_chars: number | null;
  cost_tokens: number | null;
  details: SkillDetails;
}

export interface IndexCost {
  count: number;
  cost_chars: number;
  cost_tokens: number;
}

/** The object `gatehouse skills list --json` prints and the browser receives. */
export interface Catalogue {
  version: number;
  workspace: string | null;
  platform: string;
  enabled: boolean;
  max_active: number;
  roots: SkillRoot[];
  skills: SkillEntry[];
  index: IndexCost;
}

/** What one agent session uses for its turns while the catalogue version stays the same (§10). */
export interface SkillSnapshot {
  agentSessionId: string;
  workspace: string;
  version: number;
  /** Offered entries, sorted by name. */
  entries: SkillEntry[];
  /** Every valid winner (offered or not), sorted by name: the Skill tool explains why one is not offered. */
  winners: SkillEntry[];
  index: { text: string; costChars: number; costTokens: number };
  /** sha256 of the rendered index and the offered entries: equal hashes mean the model sees the same thing. */
  hash: string;
  /** `Skill '<n>' was deactivated: <reason>.` lines for the task's progress stream, from this snapshot change. */
  deactivated: string[];
}

/** The `SecretStore` capability the catalogue needs: look a secret up by its reference. */
export interface SkillSecrets {
  get(ref: string): Promise<string | null>;
  /** Stores a secret; lets a plain `apiKey` in the settings move into the store (absent = it cannot). */
  set?(ref: string, value: string): Promise<void>;
}

export interface SkillCallResult {
  text: string;
  isError: boolean;
}
