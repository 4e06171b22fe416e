// The roots of a catalogue build and their ranks (skills.md §1), before deduplication.
import path from "node:path";
import { expandHome } from "../paths.js";
import type { RootKind } from "./types.js";

export interface RootSpec {
  rank: number;
  kind: RootKind;
  /** The root's source label (entries in ranks 5–6 may still report `wegent-managed`). */
  source: string;
  path: string;
  /** Set for rank 7 roots. */
  plugin?: { key: string; enabled: boolean };
  /** A problem known before scanning (an extra root that is not absolute). */
  error?: string;
}

export interface RootInputs {
  workspace: string | null;
  home: string;
  /** CH for this build: the global Claude home, or a non-project task's own `.claude` folder. */
  claudeHome: string;
  codexHome: string;
  /** False for a non-project task: the global Codex skills and plugins are not part of its catalogue. */
  includeGlobalRuntimes: boolean;
  extraRoots: readonly string[];
  /** The skills shipped with the app (rank 9, lowest); null = none. */
  bundledRoot?: string | null;
}

/** Ranks 1–6 and 8 (plugins, rank 7, are added by the builder in plugin-key order). */
export function fixedRootSpecs(inputs: RootInputs): { before: RootSpec[]; extra: RootSpec[] } {
  const before: RootSpec[] = [];
  if (inputs.workspace !== null) {
    const ws = inputs.workspace;
    before.push({
      rank: 1,
      kind: "workspace-clawseed",
      source: "workspace",
      path: path.join(ws, ".clawseed", "skills"),
    });
    before.push({
      rank: 2,
      kind: "workspace-claude",
      source: "workspace",
      path: path.join(ws, ".claude", "skills"),
    });
    before.push({ rank: 3, kind: "workspace", source: "workspace", path: path.join(ws, "skills") });
  }
  before.push({
    rank: 4,
    kind: "user-clawseed",
    source: "user",
    path: path.join(inputs.home, ".clawseed", "skills"),
  });
  before.push({ rank: 5, kind: "user-claude", source: "user", path: path.join(inputs.claudeHome, "skills") });
  if (inputs.includeGlobalRuntimes) {
    before.push({
      rank: 6,
      kind: "user-codex",
      source: "codex",
      path: path.join(inputs.codexHome, "skills"),
    });
  }
  const extra: RootSpec[] = inputs.extraRoots.map((raw) => {
    const expanded = expandHome(raw.trim(), inputs.home);
    if (!path.isAbsolute(expanded)) {
      return {
        rank: 8,
        kind: "extra",
        source: "extra",
        path: raw,
        error: "not an absolute path (use /… or ~/…)",
      };
    }
    return { rank: 8, kind: "extra", source: "extra", path: path.resolve(expanded) };
  });
  if (inputs.bundledRoot) {
    extra.push({ rank: 9, kind: "bundled", source: "bundled", path: path.resolve(inputs.bundledRoot) });
  }
  return { before, extra };
}
