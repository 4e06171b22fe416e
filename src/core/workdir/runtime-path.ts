// The path an agent runtime opens for a tool's path argument, as pure functions of text (issue 27,
// class 1): the file gate judges that path, not the string the model wrote. One function per runtime,
// each written from the runtime's own code and checked by running it (test/integration/runtime-path):
//
// - Claude Code (2.1.197–2.1.332, its `expandPath`): the argument is trimmed with JavaScript's trim
//   (Unicode spaces, line separators, BOM…); `~` and `~/…` become the home folder; on Windows `/c/…`
//   becomes `C:\…`; an absolute path is normalised, a relative one resolved against the session's cwd —
//   both collapse `.` and `..` as text, so the OS follows links only on the collapsed path. No Unicode
//   normalisation. It hands hooks the expanded path already; expanding again must not change it (newer
//   versions refuse such a path, older ones open the second form).
// - Codex (0.169–0.171: apply_patch file paths, view_image `path`, exec_command `workdir`): no trimming,
//   no `~` (`~/x` is a folder named `~`), joined to the turn's cwd (or the call's workdir) and
//   normalised as text (`AbsolutePathBuf`).
import type { AgentRuntime } from "../../shared/schemas/policy-words.js";
import { pathApi, type Platform } from "./platform-path.js";

export type { AgentRuntime };

export interface RuntimePathContext {
  platform: Platform;
  /** The agent's home folder (`~`). */
  home: string;
  /** The absolute folder a relative path is taken from: the session's cwd, or the call's own folder. */
  base: string;
}

export type OpenedPath =
  | {
      ok: true;
      /** Absolute: the path the runtime hands to the OS. */
      path: string;
      /** `..` already collapsed as text by the runtime (links are followed only on this form). */
      dotsCollapsed: boolean;
    }
  | { ok: false; reason: string };

/** JavaScript's `String.prototype.trim` set: WhiteSpace and LineTerminator (U+0085 is not in it). */
const JS_TRIMMED =
  /^[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+|[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$/g;

function jsTrim(text: string): string {
  return text.replace(JS_TRIMMED, "");
}

/**
 * Windows forms whose meaning depends on state Gatehouse cannot see (the per-drive cwd of the agent's
 * process, the current drive) or that name devices: `C:foo`, `\foo`, `\\.\…`, `\\?\…`.
 */
function windowsAmbiguity(p: string): string | null {
  const text = p.replace(/\//g, "\\");
  if (/^\\\\[.?]\\/.test(text) || /^\\\?\?\\/.test(text)) return "a device path";
  if (/^[A-Za-z]:(?!\\)/.test(text)) return "a drive-relative path";
  if (/^\\(?!\\)/.test(text)) return "a path rooted without a drive";
  return null;
}

function absoluteAgainst(p: string, ctx: RuntimePathContext): OpenedPath {
  const api = pathApi(ctx.platform);
  if (ctx.platform === "win32") {
    const ambiguous = windowsAmbiguity(p) ?? windowsAmbiguity(ctx.base);
    if (ambiguous) return { ok: false, reason: `${ambiguous} depends on the agent's process` };
  }
  if (!api.isAbsolute(ctx.base)) return { ok: false, reason: "the folder it is taken from is not absolute" };
  const joined = api.isAbsolute(p) ? api.normalize(p) : api.resolve(ctx.base, p);
  return { ok: true, path: trimTrailingSeparator(joined, ctx.platform), dotsCollapsed: true };
}

function trimTrailingSeparator(p: string, platform: Platform): string {
  const root = pathApi(platform).parse(p).root;
  let out = p;
  while (out.length > root.length && (out.endsWith("/") || (platform === "win32" && out.endsWith("\\"))))
    out = out.slice(0, -1);
  return out;
}

/** One pass of Claude Code's `expandPath`. */
function claudeExpand(raw: string, ctx: RuntimePathContext): OpenedPath {
  const api = pathApi(ctx.platform);
  const text = jsTrim(raw);
  if (text === "") return absoluteAgainst(ctx.base, ctx);
  if (text === "~") return absoluteAgainst(ctx.home, ctx);
  if (text.startsWith("~/")) return absoluteAgainst(api.join(ctx.home, text.slice(2)), ctx);
  let p = text;
  const msys = ctx.platform === "win32" ? /^\/([a-z])\//i.exec(text) : null;
  if (msys) p = `${msys[1]!.toUpperCase()}:\\${text.slice(3).replace(/\//g, "\\")}`;
  return absoluteAgainst(p, ctx);
}

/** The path Claude Code's file tools (Read, Write, Edit, NotebookEdit, Glob/Grep `path`…) open. */
export function claudeOpenedPath(raw: string, ctx: RuntimePathContext): OpenedPath {
  if (raw.includes("\0")) return { ok: false, reason: "it contains a NUL byte" };
  const once = claudeExpand(raw, ctx);
  if (!once.ok) return once;
  // Hooks see the expanded path and the tool expands it again: both must name one file.
  const twice = claudeExpand(once.path, ctx);
  if (!twice.ok || twice.path !== once.path)
    return { ok: false, reason: "it changes when Claude Code expands it a second time" };
  return once;
}

/** The path Codex's tools (apply_patch file paths, view_image, exec_command `workdir`) open. */
export function codexOpenedPath(raw: string, ctx: RuntimePathContext): OpenedPath {
  if (raw.includes("\0")) return { ok: false, reason: "it contains a NUL byte" };
  return absoluteAgainst(raw, ctx);
}

export function runtimeOpenedPath(runtime: AgentRuntime, raw: string, ctx: RuntimePathContext): OpenedPath {
  return runtime === "claude" ? claudeOpenedPath(raw, ctx) : codexOpenedPath(raw, ctx);
}

/**
 * Characters a path may hold without a person looking at it: letters, marks, digits, punctuation,
 * symbols and the plain space, minus what renders as nothing (default-ignorable code points: zero-width
 * and bidi controls, fillers, variation selectors) and the Braille blank. Everything else — control
 * characters, other spaces, line and paragraph separators, BOM, private-use and unassigned code points —
 * lets two paths look alike or lets a runtime trim what Gatehouse would have kept.
 */
const PLAIN = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\u2800]$/u;

/** The first character outside the conservative set, as `U+2003`, or null when every one is plain. */
export function oddPathCharacter(raw: string): string | null {
  for (const ch of raw) {
    if (PLAIN.test(ch) && !INVISIBLE.test(ch)) continue;
    return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return null;
}
