// workdir.md §4 steps 1–4 as pure functions of text: syntax rules, `~` expansion, Windows path
// forms, joining to W and the lexical form L. No file system here.
import { pathApi, separator, type Platform } from "./platform-path.js";

const CONTROL = /\p{Cc}/u;
const WINDOWS_FORBIDDEN = /[<>"|?*]/;
const WINDOWS_RESERVED = new Set([
  "CON",
  "PRN",
  "AUX",
  "NUL",
  "CONIN$",
  "CONOUT$",
  ...Array.from({ length: 10 }, (_, i) => `COM${i}`),
  ...Array.from({ length: 10 }, (_, i) => `LPT${i}`),
  "COM¹",
  "COM²",
  "COM³",
  "LPT¹",
  "LPT²",
  "LPT³",
]);

/** `~`, `~/…` and (Windows) `~\…`: the home forms. Any other leading `~` is a `~name` form. */
function homeRest(raw: string, platform: Platform): string | null {
  if (raw === "~") return "";
  if (raw.startsWith("~/") || (platform === "win32" && raw.startsWith("~\\"))) return raw.slice(2);
  return null;
}

/**
 * Step 1. Returns a short reason when the text can never be a folder on this platform, else null.
 * Reasons are for logs and the check box; the streamed message only says `invalid-path`.
 */
export function pathSyntaxProblem(raw: string, platform: Platform): string | null {
  if (CONTROL.test(raw)) return "it contains a control character";
  if (raw.startsWith("~") && homeRest(raw, platform) === null) return "`~name` forms are not supported";
  if (platform !== "win32") return null;
  return windowsSyntaxProblem(raw);
}

function windowsSyntaxProblem(raw: string): string | null {
  let text = raw.replace(/\//g, "\\");
  if (text === "~") return null;
  if (text.startsWith("~\\")) text = text.slice(2).replace(/^\\+/, "");
  if (/^\\\\\.\\/.test(text) || /^\\\?\?\\/.test(text)) return "device paths are not supported";
  if (text.startsWith("\\\\?\\")) {
    const rest = text.slice(4);
    if (/^UNC\\/i.test(rest)) text = `\\\\${rest.slice(4)}`;
    else if (/^[A-Za-z]:\\/.test(rest)) text = rest;
    else return "device paths are not supported";
  }
  if (WINDOWS_FORBIDDEN.test(text)) return 'the characters <>"|?* are not allowed';
  let body: string;
  if (text.startsWith("\\\\")) {
    const unc = /^\\\\([^\\]+)\\([^\\]+)(\\.*)?$/.exec(text);
    if (!unc) return "a network path needs a host and a share";
    body = `${unc[1]}\\${unc[2]}${unc[3] ?? ""}`;
  } else if (/^[A-Za-z]:/.test(text)) {
    if (text.charAt(2) !== "\\") return "drive-relative paths are not supported";
    body = text.slice(3);
  } else if (text.startsWith("\\")) {
    return "paths rooted without a drive are not supported";
  } else {
    body = text;
  }
  if (body.includes(":")) return "`:` is only allowed after the drive letter";
  for (const component of body.split("\\")) {
    if (component === "" || component === "." || component === "..") continue;
    if (/[ .]$/.test(component)) return "a name ends in a space or a dot";
    const stem = (component.split(".")[0] ?? "").replace(/ +$/, "").toUpperCase();
    if (WINDOWS_RESERVED.has(stem)) return `"${component}" is a reserved name`;
  }
  return null;
}

/** Windows: `\\?\C:\x` → `C:\x`, `\\?\UNC\host\share\x` → `\\host\share\x`. */
export function stripVerbatimPrefix(p: string): string {
  if (!p.startsWith("\\\\?\\")) return p;
  const rest = p.slice(4);
  if (/^UNC\\/i.test(rest)) return `\\\\${rest.slice(4)}`;
  return rest;
}

export function upperCaseDrive(p: string): string {
  return /^[a-z]:/.test(p) ? p.charAt(0).toUpperCase() + p.slice(1) : p;
}

/**
 * Step 2. `~` becomes `home`; on Windows `/` becomes `\`, a `\\?\` prefix is removed and the drive
 * letter is upper-cased. `..` is NOT collapsed here: on POSIX resolution starts from this text.
 */
export function expandRequestedPath(raw: string, home: string, platform: Platform): string {
  let text = platform === "win32" ? raw.replace(/\//g, "\\") : raw;
  const rest = homeRest(text, platform);
  if (rest !== null) {
    const trimmedHome = trimTrailingSeparators(home, platform);
    text = rest === "" ? trimmedHome : `${trimmedHome}${separator(platform)}${rest}`;
  }
  if (platform === "win32") text = upperCaseDrive(stripVerbatimPrefix(text));
  return text;
}

/** Step 3. A relative path is joined to `base` (W) as text. */
export function absoluteFrom(expanded: string, base: string, platform: Platform): string {
  if (pathApi(platform).isAbsolute(expanded)) return expanded;
  return `${trimTrailingSeparators(base, platform)}${separator(platform)}${expanded}`;
}

/** Step 4. The text form L: `.` and `..` collapsed as text, no trailing separator. */
export function lexicalForm(absolute: string, platform: Platform): string {
  const normalised = trimTrailingSeparators(pathApi(platform).normalize(absolute), platform);
  return platform === "win32" ? upperCaseDrive(normalised) : normalised;
}

export function trimTrailingSeparators(p: string, platform: Platform): string {
  const root = pathApi(platform).parse(p).root; // keep the root's own separator: `/`, `C:\`, `\\host\share\`
  let out = p;
  while (out.length > root.length && (out.endsWith("/") || (platform === "win32" && out.endsWith("\\")))) {
    out = out.slice(0, -1);
  }
  return out;
}

/** `LOCAL_WORKDIR_ALLOWED_ROOTS`: split on `,` (and `;` on Windows), trimmed, empty items dropped. */
export function splitAllowedRoots(value: string | undefined, platform: Platform): string[] {
  if (!value) return [];
  const pattern = platform === "win32" ? /[,;]/ : /,/;
  return value
    .split(pattern)
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** A root or request path made absolute without W: `~` expanded; relative stays relative (refused by callers). */
export function isAbsolutePath(p: string, platform: Platform): boolean {
  if (platform === "win32") return /^[A-Z]:\\/.test(upperCaseDrive(p)) || /^\\\\[^\\]+\\[^\\]+/.test(p);
  return p.startsWith("/");
}
