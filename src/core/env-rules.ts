// Which variables of the runner's environment a child may inherit (exec-policy.md "Running";
// docs/decisions.md "Child environments"). Children get an allowlist, never the runner's whole
// environment: the names below, the names the user adds in `E/settings.json` `environment.inherit`,
// and for agent runtimes the variables that reach their model. Some names never pass, whatever is
// configured: Gatehouse's own secrets, and the variables by which bash reads a command differently
// from how the policy analysed it.

import { TASK_KEY_ENV } from "../shared/task-env.js";

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
// TASK_KEY_ENV: a task's provenance key (approval-server/task-proof.ts), set for its agent process only.
const SECRET_NAMES = new Set(["WEGENT_AUTH_TOKEN", TASK_KEY_ENV]);

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

// prettier-ignore
const LOCATION_NAMES = new Set([
  "HOME", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME",
  "XDG_DATA_DIRS", "ZDOTDIR", "PWD", "OLDPWD", "SHELL", "BROWSER",
]);

/**
 * Variables by which a request would point programs at other configuration or other programs: a
 * request's `HOME` makes `git status` read that folder's `.gitconfig` (whose `core.fsmonitor` runs a
 * command), `OLDPWD`/`PWD` move bash's `~-`/`~+`, `SHELL`/`BROWSER` name programs tools start. The
 * runner's own values are the user's and are inherited; a request that sets one needs a person.
 */
export function locationVariable(name: string): boolean {
  return LOCATION_NAMES.has(name);
}

/** A request (or `NAME=value` prefix) that sets this changes what runs: shell behaviour or a location. */
export function requestVariableChangesWhatRuns(name: string): boolean {
  return shellBehaviourVariable(name) || locationVariable(name);
}

const CHARSET_VARIABLES = new Set(["LC_ALL", "LC_CTYPE", "LANG"]);

/**
 * A locale whose character set bash would read the text in differently from the analyser (which reads
 * UTF-8): in Big5, GBK, GB18030, Shift_JIS or JOHAB a backslash or backquote byte can be the second half
 * of a character. Only C, POSIX and UTF-8 locales are passed in the variables that choose the charset.
 */
export function unsafeCharsetLocale(name: string, value: string): boolean {
  if (!CHARSET_VARIABLES.has(name)) return false;
  return !/^(|C|POSIX|C\.UTF-?8|[A-Za-z]{2,3}(_[A-Za-z0-9]{2,3})?\.UTF-?8)(@[A-Za-z0-9_-]+)?$/i.test(value);
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

// prettier-ignore
const CODE_LOADING_NAMES = new Set([
  "NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "PERLLIB",
  "PERL5DB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH",
  "GLIBC_TUNABLES", "LUA_INIT", "ELECTRON_RUN_AS_NODE",
]);

/**
 * Variables that load code into whatever program starts next (the dynamic loader's, the interpreters'):
 * even a name the user listed in `environment.inherit` never passes these on (a runner's stray
 * LD_PRELOAD must not ride along into every command).
 */
export function codeLoadingVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return /^(LD_|DYLD_)/.test(upper) || CODE_LOADING_NAMES.has(upper);
}
