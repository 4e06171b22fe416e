// A copy of a launch spec that is safe to show: MCP header and env values (in files and in Codex
// overrides), secret-looking environment variables, known secret values such as the task token,
// bearer tokens and credentials in URLs are replaced by "[redacted]".
import { parse as parseToml } from "smol-toml";
import type { LaunchSpec } from "./launch-spec.js";
import { tomlString } from "./toml-value.js";
import { isRecord } from "../../shared/is-record.js";

export const MASK = "[redacted]";
const SECRET_ENV_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|CREDENTIAL|AUTH/i;
const SECRET_MAPS = new Set(["headers", "http_headers", "env"]);

/** Every string below a `headers`/`http_headers`/`env` key (or all of `value` when `inside`). */
function collectMapSecrets(value: unknown, out: Set<string>, inside = false): void {
  if (typeof value === "string") {
    if (inside) out.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectMapSecrets(item, out, inside);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value))
      collectMapSecrets(item, out, inside || SECRET_MAPS.has(key));
  }
}

function maskMaps(value: unknown, inside = false): unknown {
  if (typeof value === "string") return inside ? MASK : value;
  if (Array.isArray(value)) return value.map((item) => maskMaps(item, inside));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, maskMaps(item, inside || SECRET_MAPS.has(key))]),
    );
  }
  return value;
}

/** An MCP config file with its header and env values masked (other files unchanged). */
function maskFile(content: string, out: Set<string>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) return content;
  collectMapSecrets(parsed.mcpServers, out);
  return `${JSON.stringify({ ...parsed, mcpServers: maskMaps(parsed.mcpServers) }, null, 2)}\n`;
}

/** A Codex `-c key=value` with the header and env values inside it masked. */
function maskOverride(override: string, out: Set<string>): string {
  const eq = override.indexOf("=");
  if (eq < 0) return override;
  const key = override.slice(0, eq);
  let value = override.slice(eq + 1);
  const found = new Set<string>();
  try {
    const parsed = parseToml(`v = ${value}`);
    collectMapSecrets(
      parsed.v,
      found,
      key.split(".").some((s) => SECRET_MAPS.has(s)),
    );
  } catch {
    return override; // a value Codex would take literally carries no structure to mask
  }
  for (const secret of [...found].sort((a, b) => b.length - a.length)) {
    out.add(secret);
    const encoded = tomlString(secret);
    if (encoded === null) continue;
    value = value === encoded ? `"${MASK}"` : value.split(`=${encoded}`).join(`="${MASK}"`);
  }
  return `${key}=${value}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function scrubber(secrets: Set<string>): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1)); // as written inside JSON and TOML strings
  }
  const known = [...forms].sort((a, b) => b.length - a.length);
  const pattern = known.length ? new RegExp(known.map(escapeRegExp).join("|"), "g") : null;
  return (text) =>
    (pattern ? text.replace(pattern, MASK) : text)
      .replace(/\b(Bearer|Basic)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${MASK}`)
      .replace(/(:\/\/[^/\s:@"']+:)[^@/\s"']+@/g, `$1${MASK}@`)
      .replace(
        /([?&](?:token|access_token|api_key|apikey|key|secret|password|auth|sig|signature)=)[^&#\s"']+/gi,
        `$1${MASK}`,
      );
}

export function maskSpec(
  spec: LaunchSpec,
  knownSecrets: Iterable<string | null | undefined> = [],
): LaunchSpec {
  const secrets = new Set<string>();
  for (const secret of knownSecrets) if (secret) secrets.add(secret);
  const files = spec.files.map((file) => ({ ...file, content: maskFile(file.content, secrets) }));
  const args = spec.args.map((arg, i) => (spec.args[i - 1] === "-c" ? maskOverride(arg, secrets) : arg));
  const scrub = scrubber(secrets);
  return {
    ...spec,
    args: args.map(scrub),
    env: Object.fromEntries(
      Object.entries(spec.env).map(([k, v]) => [k, SECRET_ENV_NAME.test(k) && v ? MASK : scrub(v)]),
    ),
    stdin: spec.stdin === null ? null : scrub(spec.stdin),
    files: files.map((file) => ({ ...file, content: scrub(file.content) })),
  };
}
