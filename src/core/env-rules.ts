// Which variables of the runner's environment a child may inherit (exec-policy.md "Running";
// docs/decisions.md "Child environments"). Children get an allowlist, never the runner's whole
// environment: the names below, the names the user adds in `E/settings.json` `environment.inherit`,
// and for agent runtimes the variables that reach their model. Some names never pass, whatever is
// configured: Gatehouse's own secrets, and the variables by which bash reads a command differently
// from how the policy analysed it.

/** Inherited by every child: what ordinary programs need to find their files, locale and network. */
// prettier-ignore
export const INHERITED_NAMES: readonly string[] = [
  // POSIX
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR",
  "TMPDIR", "TMP", "TEMP",
  "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
  "http_proxy", "https_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
  "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
  // Windows
  "SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "OS", "USERPROFILE", "USERNAME", "USERDOMAIN",
  "COMPUTERNAME", "APPDATA", "LOCALAPPDATA", "HOMEDRIVE", "HOMEPATH", "PUBLIC", "ALLUSERSPROFILE",
  "ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "CommonProgramFiles",
  "CommonProgramFiles(x86)", "CommonProgramW6432", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
  "PROCESSOR_IDENTIFIER",
];

/** Name prefixes inherited by every child (the locale categories). */
export const INHERITED_PREFIXES: readonly string[] = ["LC_"];

/**
 * Variables an agent runtime reads to reach its model (API keys, base URLs, its own switches), as
 * `PREFIX*` patterns. A Bedrock, Vertex or custom-provider setup adds its own names in settings.
 */
export const RUNTIME_INHERIT: Readonly<Record<"claude-code" | "codex", readonly string[]>> = {
  "claude-code": ["ANTHROPIC_*", "CLAUDE_*"],
  codex: ["OPENAI_*", "CODEX_*"],
};

/** Gatehouse's own secrets by name: never in any child's environment. */
const SECRET_NAMES = new Set(["WEGENT_AUTH_TOKEN"]);

export function isGatehouseSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toUpperCase());
}

// prettier-ignore
const SHELL_BEHAVIOUR_NAMES = new Set([
  "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT", "BASH_COMPAT", "BASH_XTRACEFD",
  "BASH_LOADABLES_PATH", "PS4", "PROMPT_COMMAND", "GLOBIGNORE", "GLOBSORT", "EXECIGNORE", "CDPATH", "IFS",
  "TEXTDOMAIN", "TEXTDOMAINDIR",
]);

/**
 * Variables by which bash (and the scripts it starts) reads a command differently from how the
 * policy analysed it: startup files, options, exported functions (`BASH_FUNC_name%%`), globbing and
 * `cd` rules, `$"…"` translations — and any name that is not a shell identifier, which no
 * `NAME=value` assignment could set (bash imports `BASH_FUNC_…%%` through exactly such names).
 */
export function shellBehaviourVariable(name: string): boolean {
  return (
    SHELL_BEHAVIOUR_NAMES.has(name) || name.startsWith("BASH_FUNC_") || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
  );
}

/** A name, or `PREFIX*` for every name that starts with PREFIX (settings `environment.inherit`). */
export const INHERIT_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** True when `pattern` (a name or `PREFIX*`) covers `name`; case-insensitive on Windows. */
export function inheritPatternMatches(pattern: string, name: string, platform: NodeJS.Platform): boolean {
  const fold = (s: string) => (platform === "win32" ? s.toUpperCase() : s);
  if (pattern.endsWith("*")) return fold(name).startsWith(fold(pattern.slice(0, -1)));
  return fold(name) === fold(pattern);
}

/** Why a configured name can never be inherited, or null when it can. */
export function refusedInheritName(pattern: string): string | null {
  const name = pattern.endsWith("*") ? null : pattern;
  if (name !== null && isGatehouseSecretName(name))
    return `${name} is Gatehouse's own secret and never reaches a command or an agent`;
  if (name !== null && shellBehaviourVariable(name))
    return `${name} changes how bash reads a command, so commands would not run as they were checked`;
  return null;
}
