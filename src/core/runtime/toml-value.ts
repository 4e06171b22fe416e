// TOML encoding for Codex `-c key=value` overrides (device-protocol.md §8.4). Codex parses the value
// as TOML and, when that fails, silently takes the raw text as a string — so every value here must be
// valid TOML or not be emitted at all.

/** Unpaired UTF-16 surrogates cannot be written in TOML (they are not Unicode scalar values). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/**
 * A TOML basic string. `JSON.stringify` escapes `"`, `\` and control characters with escapes TOML
 * shares; DEL (U+007F), which JSON leaves raw and TOML forbids raw, is escaped as well. `null` when the
 * text holds an unpaired surrogate.
 */
export function tomlString(value: string): string | null {
  if (hasLoneSurrogate(value)) return null;
  return JSON.stringify(value).replace(/\u007f/g, "\\u007f");
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** A key segment Codex can take bare in a dotted `-c` key. */
export function isBareKey(key: string): boolean {
  return BARE_KEY.test(key);
}

/** A key inside an inline table: bare when it may be, else quoted. */
export function tomlKey(key: string): string | null {
  return isBareKey(key) ? key : tomlString(key);
}

/** `["a","b"]`, no spaces. */
export function tomlArray(values: string[]): string | null {
  const items = values.map(tomlString);
  return items.includes(null) ? null : `[${items.join(",")}]`;
}
