// The Claude Code registry keys a synced plugin holds (naming.ts, docs/agent-clis.md): `<name>@gatehouse`
// from now on, and the backend's `<name>@<marketplace>` that earlier versions registered, which goes
// wherever its entry still points at Gatehouse's own install path.
import { compareCodePoints } from "../canonical-json.js";
import { claudePluginKey } from "../naming.js";
import type { ClaudeRegistryPatch } from "./claude-registry.js";
import type { CapabilityManifest, ManifestPlugin } from "./manifest.js";

/** The Claude Code keys a manifest's synced plugins (those with a Claude link) hold. */
export function claudeKeysOf(manifest: CapabilityManifest): Set<string> {
  const out = new Set<string>();
  for (const entry of Object.values(manifest.plugins))
    if (entry.managed === true && entry.name && entry.runtime?.claude_link)
      out.add(claudePluginKey(entry.name));
  return out;
}

/** The install paths Gatehouse wrote for an entry: its Claude link (as `resolve` reads it) and `more`. */
export function ourInstallPaths(
  entry: ManifestPlugin | undefined,
  resolve: (p: string) => string,
  ...more: string[]
): string[] {
  const link = entry?.runtime?.claude_link;
  return [...(link ? [resolve(link)] : []), ...more];
}

/**
 * Unregisters the plugin of manifest entry `key` from Claude Code: its `<name>@gatehouse` key unless
 * another synced entry of `manifest` (not `key`) still holds it, and its legacy key where ours.
 */
export function unregisterPlugin(
  patch: ClaudeRegistryPatch,
  key: string,
  entry: ManifestPlugin,
  manifest: CapabilityManifest,
  resolve: (p: string) => string,
): void {
  const claudeKey = entry.name ? claudePluginKey(entry.name) : null;
  if (claudeKey !== null) {
    const stillHeld = Object.entries(manifest.plugins).some(
      ([other, e]) =>
        other !== key && e.managed === true && e.name === entry.name && !!e.runtime?.claude_link,
    );
    if (!stillHeld) patch.removePlugin(claudeKey);
  }
  if (key !== claudeKey) patch.dropLegacy(key, ourInstallPaths(entry, resolve));
}

/**
 * The manifest key of the synced plugin a registry key belongs to, or null: `<name>@gatehouse` is the
 * synced plugin of that name, a backend key one an earlier Gatehouse registered under that key.
 */
export function managedKeyOf(manifest: CapabilityManifest): (registryKey: string) => string | null {
  const held = new Map<string, string>();
  for (const key of Object.keys(manifest.plugins).sort(compareCodePoints)) {
    const entry = manifest.plugins[key]!;
    const claudeKey = entry.managed === true && entry.name ? claudePluginKey(entry.name) : null;
    if (claudeKey !== null && entry.runtime?.claude_link && !held.has(claudeKey)) held.set(claudeKey, key);
  }
  return (registryKey) =>
    held.get(registryKey) ?? (manifest.plugins[registryKey]?.managed === true ? registryKey : null);
}
