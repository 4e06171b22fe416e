// Per-sync state (device-protocol.md §7.9, §7.10): item results in payload order, removal errors, the
// pending Claude registry patch and who asked for each key in it, and the progress counter.
import { ClaudeRegistryPatch } from "./io/claude-registry.js";
import type { CapabilityKind, SyncErrorEntry, SyncItemResult, SyncItemsAck } from "./last-sync.js";
import type { ManifestPlugin } from "./io/manifest.js";
import type { SyncPayload } from "./payload.js";

export function fail(result: SyncItemResult, error: string): void {
  result.status = "failed";
  result.error = error;
}

/** Who asked for a registry key: a payload item (its result fails with the registry) or a removal. */
export type RegistryOwner =
  { kind: "item"; result: SyncItemResult } | { kind: "removal"; entry: ManifestPlugin };

export class SyncRun {
  readonly skills: SyncItemResult[];
  readonly plugins: SyncItemResult[];
  readonly mcps: SyncItemResult[];
  readonly removalErrors: SyncErrorEntry[] = [];
  readonly patch = new ClaudeRegistryPatch();
  readonly registryOwners = new Map<string, RegistryOwner>();
  readonly total: number;
  done = 0;

  constructor(payload: SyncPayload) {
    const result = (id: number | undefined, name: string): SyncItemResult => ({
      ...(id !== undefined && { id }),
      name,
      status: "synced",
    });
    this.skills = payload.skills.map((s) => result(s.skillId, s.name));
    this.plugins = payload.plugins.map((p) => result(p.installedPluginId, p.name));
    this.mcps = payload.mcps.map((m) => result(m.installedMcpId, m.name));
    this.total = this.skills.length + this.plugins.length + this.mcps.length;
  }

  finish(): void {
    this.done++;
  }

  removalFailed(entry: { kind: CapabilityKind; id: number | undefined; name: string; error: string }): void {
    this.removalErrors.push({
      kind: entry.kind,
      ...(entry.id !== undefined && { id: entry.id }),
      name: entry.name,
      error: entry.error,
    });
  }

  ack(): SyncItemsAck {
    const failures = (kind: CapabilityKind, results: SyncItemResult[]): SyncErrorEntry[] =>
      results
        .filter((r) => r.status === "failed")
        .map((r) => ({
          kind,
          ...(r.id !== undefined && { id: r.id }),
          name: r.name,
          error: r.error ?? "failed",
        }));
    const errors = [
      ...this.removalErrors,
      ...failures("skill", this.skills),
      ...failures("plugin", this.plugins),
      ...failures("mcp", this.mcps),
    ];
    return {
      success: errors.length === 0,
      skills: this.skills,
      plugins: this.plugins,
      mcps: this.mcps,
      errors,
    };
  }
}
