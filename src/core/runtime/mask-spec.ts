// A copy of a launch spec that is safe to show: what `../secret-mask.ts` masks in MCP servers (in files
// and in Codex overrides), secret-looking environment variables, known secret values such as the task
// token, bearer tokens and credentials in URLs are replaced by "[redacted]".
import { parse as parseToml } from "smol-toml";
import type { LaunchSpec } from "./launch-spec.js";
import { tomlString } from "./toml-value.js";
import { isRecord } from "../../shared/is-record.js";
import { MASK, maskSecrets, NAME_MAPS, SECRET_MAPS, SECRET_NAME } from "../secret-mask.js";

export { MASK };

/** An MCP config file with its header and env values masked (other files unchanged). */
function maskFile(content: string, out: Set<string>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return content;
  }
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) return content;
  return `${JSON.stringify({ ...parsed, mcpServers: maskSecrets(parsed.mcpServers, out) }, null, 2)}\n`;
}

/** A Codex `-c key=value` with the header and env values inside it masked. */
function maskOverride(override: string, out: Set<string>): string {
  const eq = override.indexOf("=");
  if (eq < 0) return override;
  const key = override.slice(0, eq);
  let value = override.slice(eq + 1);
  const segments = key.split(".");
  if (segments.some((s) => NAME_MAPS.has(s))) return override; // names of variables, not their values
  const found = new Set<string>();
  try {
    const parsed = parseToml(`v = ${value}`);
    maskSecrets(
      parsed.v,
      found,
      segments.some((s) => SECRET_MAPS.has(s)),
      segments.at(-1),
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
      Object.entries(spec.env).map(([k, v]) => [k, SECRET_NAME.test(k) && v ? MASK : scrub(v)]),
    ),
    stdin: spec.stdin === null ? null : scrub(spec.stdin),
    files: files.map((file) => ({ ...file, content: scrub(file.content) })),
  };
}
