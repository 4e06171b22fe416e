// What looks secret by where it stands, masked the same way wherever a configuration is shown: every
// value in a header or environment map, a value whose key or flag names a secret, URL credentials.
// `redact.ts` hides secrets known by value; this hides the ones known by place. The launch-spec view
// (`gatehouse runtime show`) and the capability browser both mask through here.
import { isRecord } from "../shared/is-record.js";
import { REDACTED } from "./redact.js";

export const MASK = REDACTED;

/** Maps whose every value is a secret: MCP headers and environments, in each spelling agents use. */
export const SECRET_MAPS: ReadonlySet<string> = new Set(["headers", "http_headers", "env", "environment"]);

/** A key, flag or variable name that says its value is a secret. */
export const SECRET_NAME = /token|secret|password|passwd|api[_-]?key|credential|auth/i;

/** Keys that match SECRET_NAME but hold no secret: a kind of auth, the NAME of a variable holding one. */
const NAMES_NOT_SECRETS = /^auth_type$|_env_var$/i;

/** Codex maps and lists that hold the NAMES of environment variables (the secrets stay in the environment). */
export const NAME_MAPS: ReadonlySet<string> = new Set(["env_http_headers", "env_vars"]);

export function isSecretKey(key: string): boolean {
  return SECRET_NAME.test(key) && !NAMES_NOT_SECRETS.test(key);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL with its user, password and secret-named query values masked; each masked value is added to `found`. */
export function maskUrl(text: string, found?: Set<string>): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (url.username) url.username = MASK;
  if (url.password) {
    found?.add(url.password);
    found?.add(decoded(url.password));
    url.password = MASK;
  }
  for (const [key, value] of [...url.searchParams.entries()]) {
    if (!SECRET_NAME.test(key)) continue;
    found?.add(value);
    url.searchParams.set(key, MASK);
  }
  return url.toString().replaceAll(encodeURIComponent(MASK), MASK);
}

/**
 * A copy of `value` (an MCP server definition, a Codex override value, …) with every string inside a
 * secret map, under a secret-named key or after a secret-named flag masked, and URL credentials masked.
 * Every whole string it masks is added to `found`, so a caller can scrub the same secret elsewhere.
 * `inside` and `key` describe where `value` itself stands.
 */
export function maskSecrets(value: unknown, found?: Set<string>, inside = false, key = ""): unknown {
  if (NAME_MAPS.has(key)) return value;
  if (typeof value === "string") {
    if (inside || isSecretKey(key)) {
      found?.add(value);
      return MASK;
    }
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? maskUrl(value, found) : value;
  }
  if (Array.isArray(value)) {
    let hideNext = false;
    return value.map((item) => {
      if (typeof item !== "string") return maskSecrets(item, found, inside);
      if (hideNext) {
        hideNext = false;
        found?.add(item);
        return MASK;
      }
      const flag = /^--?([A-Za-z0-9_-]+)(=(.*))?$/.exec(item);
      if (flag?.[1] && isSecretKey(flag[1])) {
        if (flag[3] === undefined) {
          hideNext = true;
          return item;
        }
        found?.add(flag[3]);
        return `${item.slice(0, item.indexOf("=") + 1)}${MASK}`;
      }
      return maskSecrets(item, found, inside);
    });
  }
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, maskSecrets(v, found, inside || SECRET_MAPS.has(k), k)]),
    );
  }
  return value;
}
