// Path arithmetic that depends on the platform's rules, as pure functions: the platform is a
// parameter so the Windows rules can be unit-tested on any machine through `path.win32`.
import path from "node:path";

export type Platform = NodeJS.Platform;

export function pathApi(platform: Platform): path.PlatformPath {
  return platform === "win32" ? path.win32 : path.posix;
}

export function separator(platform: Platform): string {
  return platform === "win32" ? "\\" : "/";
}

/** Case-folded NFC form: the comparison key for protected folders (over-matching only refuses more). */
export function foldName(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/**
 * A fold wider than any volume's: compatibility forms (NFKC) and case both ways, so `ſ` (long s) meets
 * `s` and the Kelvin sign meets `k` as Unicode case folding makes them meet on a case-insensitive volume.
 * Only for protection, where matching too much refuses more and never allows more.
 */
export function wideFold(name: string): string {
  return name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}

export interface CompareRule {
  caseInsensitive: boolean;
  nfc: boolean;
  /** Protection only: fold with `wideFold` (implies case- and normalisation-insensitive). */
  wide?: boolean;
}

/** How protected folders are compared: always the widest fold. */
export const PROTECTION_RULE: CompareRule = { caseInsensitive: true, nfc: true, wide: true };

export function compareKey(name: string, rule: CompareRule): string {
  if (rule.wide) return wideFold(name);
  const n = rule.nfc ? name.normalize("NFC") : name;
  return rule.caseInsensitive ? n.toLowerCase() : n;
}

/**
 * The components of an absolute path, root first: `/` on POSIX; `C:` or `\\host\share` on Windows
 * (a drive or a share counts as one component). Empty and `.` components are dropped; `..` is kept.
 */
export function pathComponents(p: string, platform: Platform): string[] {
  if (platform === "win32") {
    const text = p.replace(/\//g, "\\");
    const unc = /^\\\\([^\\]+)\\([^\\]+)(?:\\|$)/.exec(text);
    let root: string;
    let rest: string;
    if (unc) {
      root = `\\\\${unc[1]}\\${unc[2]}`;
      rest = text.slice(unc[0].length);
    } else if (/^[A-Za-z]:/.test(text)) {
      root = `${text.charAt(0).toUpperCase()}:`;
      rest = text.slice(2);
    } else {
      root = "";
      rest = text;
    }
    const names = rest.split("\\").filter((c) => c !== "" && c !== ".");
    return root ? [root, ...names] : names;
  }
  const names = p.split("/").filter((c) => c !== "" && c !== ".");
  return p.startsWith("/") ? ["/", ...names] : names;
}

/** Joins components produced by `pathComponents` back into a path. */
export function joinComponents(components: readonly string[], platform: Platform): string {
  const [root, ...names] = components;
  if (root === undefined) return "";
  if (platform === "win32") {
    if (/^[A-Za-z]:$/.test(root) || root.startsWith("\\\\")) return `${root}\\${names.join("\\")}`;
    return components.join("\\");
  }
  if (root === "/") return `/${names.join("/")}`;
  return components.join("/");
}

/** Component-wise containment (never a string prefix test): `child` equals or lies inside `parent`. */
export function isWithinComponents(
  child: readonly string[],
  parent: readonly string[],
  rule: CompareRule,
): boolean {
  if (parent.length === 0 || parent.length > child.length) return false;
  for (let i = 0; i < parent.length; i += 1) {
    if (compareKey(child[i] as string, rule) !== compareKey(parent[i] as string, rule)) return false;
  }
  return true;
}

export function isWithin(child: string, parent: string, platform: Platform, rule: CompareRule): boolean {
  return isWithinComponents(pathComponents(child, platform), pathComponents(parent, platform), rule);
}

export function samePath(a: string, b: string, platform: Platform, rule: CompareRule): boolean {
  const ca = pathComponents(a, platform);
  const cb = pathComponents(b, platform);
  return ca.length === cb.length && isWithinComponents(ca, cb, rule);
}

/** The comparison rule of a root: case per its probe (always on Windows), NFC on macOS. */
export function rootRule(caseInsensitive: boolean, platform: Platform): CompareRule {
  return { caseInsensitive: caseInsensitive || platform === "win32", nfc: platform === "darwin" };
}

/** Swaps the case of every letter (the probe for case-insensitive volumes). */
export function swapCase(text: string): string {
  let out = "";
  for (const ch of text) {
    const lower = ch.toLowerCase();
    out += ch === lower ? ch.toUpperCase() : lower;
  }
  return out;
}

/**
 * A name Windows may take for an 8.3 short name (`PROGRA~1`, `WEGENT~1.JSO`): `~` and a digit. Where such a
 * name does not exist yet nothing can expand it, and once created it may alias a long name.
 */
export function looksLikeShortName(name: string): boolean {
  return /~\d/.test(name);
}
