// What kind of thing an allowlist `pattern` (or `cwd`) is, and whether it is well formed
// (exec-policy.md "Matching allowlist entries"). Shared by validation, matching and the editor.
import picomatch from "picomatch";
import { isMcpPattern, mcpPatternProblem } from "../../shared/mcp-entry.js";

export type PatternKind = "any" | "bare" | "path" | "mcp";

/**
 * `*` = every resolved executable; `mcp:SERVER/TOOL` = an MCP tool (mcp-entry.ts), never a program; a
 * bare name (no `/`, `\` or `~`) = found through PATH; else a path glob.
 */
export function patternKind(pattern: string): PatternKind {
  if (pattern === "*") return "any";
  if (isMcpPattern(pattern)) return "mcp";
  if (!/[/\\~]/.test(pattern)) return "bare";
  return "path";
}

const GLOB_CHARS = /[*?[\]{}()!+@]/;

/** Why a path glob (pattern or cwd) is unusable, or null when it is fine. */
export function pathGlobProblem(glob: string): string | null {
  if (glob.length === 0) return "is empty";
  if (glob.length > 4096) return "is longer than 4096 characters";
  if (/[\0\r\n]/.test(glob)) return "contains a control character";
  const slashed = glob.replace(/\\/g, "/");
  const absolute =
    slashed.startsWith("/") || slashed === "~" || slashed.startsWith("~/") || /^[A-Za-z]:\//.test(slashed);
  if (!absolute) {
    if (slashed.startsWith("~")) return "uses ~user, which is not supported (write the full path or ~/…)";
    return "must be an absolute path or start with ~/";
  }
  if (slashed.split("/").some((part) => part === "." || part === "..")) {
    return "must not contain . or .. segments (patterns match real paths)";
  }
  try {
    picomatch.makeRe(slashed, { dot: true });
  } catch (error) {
    return `is not a valid glob (${(error as Error).message})`;
  }
  return null;
}

/** Why `pattern` is unusable as an allowlist pattern, or null. */
export function patternProblem(pattern: string): string | null {
  const kind = patternKind(pattern);
  if (kind === "any") return null;
  if (kind === "mcp") return mcpPatternProblem(pattern);
  if (kind === "bare") {
    if (pattern.trim() !== pattern || pattern.length === 0) return "must not be empty or padded with spaces";
    if (/[\0\r\n]/.test(pattern)) return "contains a control character";
    if (GLOB_CHARS.test(pattern)) {
      return "is a bare name with glob characters; use a path pattern such as /usr/bin/name* instead";
    }
    return null;
  }
  return pathGlobProblem(pattern);
}

/** Escapes glob characters so a real path can be used as an exact pattern (`\` means `/` here, so brackets). */
export function escapeGlob(literalPath: string): string {
  return literalPath.replace(/[*?[\]{}()!+@]/g, (c) => `[${c}]`);
}

/** Executables that are never granted without an argPattern: they run whatever they are given. */
export const NEVER_BARE_GRANT = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "ash",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "cmd",
  "powershell",
  "pwsh",
  "sudo",
  "doas",
]);

/** The executable name a pattern names (last path segment, lower-cased, `.exe`/`.cmd`/`.bat` dropped). */
export function patternExecutableName(pattern: string): string {
  const last = pattern.replace(/\\/g, "/").split("/").pop() ?? pattern;
  return last.toLowerCase().replace(/\.(exe|cmd|bat|com)$/, "");
}

/**
 * Why an allow-always grant is refused, or null: a shell or sudo/doas without an argPattern, or a
 * pattern that matches every executable, would turn one approval into a blank cheque.
 */
export function allowAlwaysProblem(entry: { pattern: string; argPattern?: string }): string | null {
  if (isMcpPattern(entry.pattern)) return null; // one named tool of one server: never a blank cheque
  if (entry.argPattern !== undefined && entry.argPattern !== "") return null;
  if (entry.pattern === "*" || /(^|\/)\*\*?$/.test(entry.pattern.replace(/\\/g, "/"))) {
    return `allow always never saves a pattern that matches any executable (${entry.pattern}) without an argPattern`;
  }
  const name = patternExecutableName(entry.pattern);
  if (NEVER_BARE_GRANT.has(name)) {
    return `allow always never saves ${name} without an argPattern: it runs whatever it is given`;
  }
  return null;
}
