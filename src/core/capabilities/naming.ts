// Folder names and keys built from several untrusted names (device-protocol.md §7.2), in a form that
// cannot collide: `-` joins the parts, so every part but the one the others enclose has its own `-`
// (and `%`) percent-encoded. Parts without either character come out exactly as the protocol's
// examples (`1336-default-browser`, `9-claude-plugins-official-context7-1057d02c5307`,
// `context7-claude-plugins-official`), so stores written before the encoding mostly keep their names;
// the `legacy*` forms are what earlier versions wrote (docs/decisions.md "Sync integrity").
//
// Plugin keys stay Claude Code's own `<name>@<marketplace>`: it cannot be re-encoded, so payload
// validation refuses an `@` in either part instead (payload.ts).

/** `%` → `%25`, `-` → `%2D`: the result has no `-`, and decoding it is unambiguous. */
export function encodePart(part: string): string {
  return part.replaceAll("%", "%25").replaceAll("-", "%2D");
}

/** `{skill_id}-{namespace}-{name}`: the id is digits, the namespace is encoded, the name is the rest. */
export function skillStoreName(skillId: number, namespace: string, name: string): string {
  return `${skillId}-${encodePart(namespace)}-${name}`;
}

export function legacySkillStoreName(skillId: number, namespace: string, name: string): string {
  return `${skillId}-${namespace}-${name}`;
}

/**
 * `{installed_plugin_id}-{marketplace}-{name}-{version}`: read from both ends, the id is digits and
 * name and version are encoded, so the marketplace is what remains in the middle.
 */
export function pluginStoreName(id: number, marketplace: string, name: string, version: string): string {
  return `${id}-${marketplace}-${encodePart(name)}-${encodePart(version)}`;
}

export function legacyPluginStoreName(
  id: number,
  marketplace: string,
  name: string,
  version: string,
): string {
  return `${id}-${marketplace}-${name}-${version}`;
}

/** The Codex plugin link `{name}-{marketplace}`: the name is encoded, the marketplace is the rest. */
export function codexPluginLinkName(name: string, marketplace: string): string {
  return `${encodePart(name)}-${marketplace}`;
}

export function legacyCodexPluginLinkName(name: string, marketplace: string): string {
  return `${name}-${marketplace}`;
}

/** Claude Code's plugin key. Neither part may contain `@` (refused when the payload is read). */
export function pluginKey(name: string, marketplace: string): string {
  return `${name}@${marketplace}`;
}

/**
 * The marketplace Gatehouse registers in Claude Code for every plugin it syncs, whatever marketplace
 * the backend names (docs/agent-clis.md "Synced plugins in Claude Code"): Claude Code 2.1.332 refuses a
 * directory marketplace under a reserved name such as `claude-plugins-official`, or one that only looks
 * official (`official-claude-…`), so the backend's name cannot be the one registered.
 */
export const CLAUDE_MARKETPLACE = "gatehouse";

/** The key a synced plugin has in Claude Code (`installed_plugins.json`, `enabledPlugins`): `<name>@gatehouse`. */
export function claudePluginKey(name: string): string {
  return pluginKey(name, CLAUDE_MARKETPLACE);
}

/** How two paths are compared for collisions: composed and case-folded, as on macOS and Windows. */
export function collisionKey(p: string): string {
  return p.normalize("NFC").toLowerCase();
}
