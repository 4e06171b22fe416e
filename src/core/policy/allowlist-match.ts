// Matching segments against an agent's allowlist (exec-policy.md "Matching allowlist entries").
// Entries are compiled once per approvals-file object (exact paths and bare names indexed, globs and
// regexes built, or reused from the same entry in the file's previous reading), so matching a segment
// against thousands of entries is a few map lookups plus the globs that really are globs.
import path from "node:path";
import picomatch from "picomatch";
import { effectiveAllowlist, entryLiveness, patternKind, type ApprovalsFile } from "../approvals/index.js";
import type { AllowlistEntry, Segment } from "./types.js";

export interface CompiledEntry {
  agentId: string;
  entry: AllowlistEntry;
  /** Position in the effective allowlist: the first matching entry wins. */
  order: number;
  kind: "any" | "bare" | "exact" | "glob";
  glob?: RegExp;
  /** The glob's literal leading folder: a path not starting with it cannot match (a cheap pre-check). */
  globBase?: string;
  /** An invalid argPattern or cwd (a hand-edited file): the entry matches nothing. */
  broken?: string;
  argRe?: RegExp;
  cwdRe?: RegExp;
  /** An exact pattern's path as paths are compared (normalizeMatchPath). */
  exactKey?: string;
}

export interface CompiledAllowlist {
  entries: CompiledEntry[];
  exact: Map<string, CompiledEntry[]>;
  bare: Map<string, CompiledEntry[]>;
  any: CompiledEntry[];
  globs: CompiledEntry[];
  /** Globs by the first folder of their literal base (`opt` for a glob under /opt); "" when there is none. */
  globsByRoot: Map<string, CompiledEntry[]>;
}

export interface MatchEnv {
  home: string;
  platform: NodeJS.Platform;
}

const compiledByFile = new WeakMap<ApprovalsFile, Map<string, CompiledAllowlist>>();

function caseInsensitive(platform: NodeJS.Platform): boolean {
  return platform === "win32" || platform === "darwin";
}

/** A path as patterns see it: `\` → `/`, case folded where the file system folds case. */
export function normalizeMatchPath(p: string, platform: NodeJS.Platform): string {
  const slashed = p.replace(/\\/g, "/");
  return caseInsensitive(platform) ? slashed.toLowerCase() : slashed;
}

/** Expands `~`, turns `\` into `/`, and on macOS writes /var, /tmp, /etc as the real /private/… paths. */
export function normalizePattern(pattern: string, env: MatchEnv): string {
  let p = pattern.replace(/\\/g, "/");
  const home = env.home.replace(/\\/g, "/").replace(/\/+$/, "");
  if (p === "~") p = home;
  else if (p.startsWith("~/")) p = `${home}/${p.slice(2)}`;
  if (env.platform === "darwin" && /^\/(var|tmp|etc)(\/|$)/.test(p)) p = `/private${p}`;
  return p;
}

/** The name a bare pattern compares with: Windows drops the PATHEXT extension; case folded where needed. */
function bareKey(name: string, platform: NodeJS.Platform): string {
  const folded = caseInsensitive(platform) ? name.toLowerCase() : name;
  return platform === "win32" ? folded.replace(/\.(exe|com|cmd|bat)$/, "") : folded;
}

function globRegExp(pattern: string, platform: NodeJS.Platform): RegExp {
  return picomatch.makeRe(pattern, { dot: true, nocase: caseInsensitive(platform), windows: false });
}

/** What an entry compiles to, apart from who owns it and where it stands in the list. */
type EntryParts = Omit<CompiledEntry, "agentId" | "entry" | "order">;

/**
 * Compiled parts by what they are compiled from. The approvals file is read again after every write
 * (usage notes every 2 s of agent activity), and compiling globs and regexes anew for thousands of
 * entries costs ~0.05 ms each; an unchanged entry reuses its parts (the RegExps carry no flags, so
 * sharing them shares no state).
 */
const partsBySource = new Map<string, EntryParts>();
const MAX_CACHED_PARTS = 8_192;

function compiledParts(entry: AllowlistEntry, env: MatchEnv): EntryParts {
  // JSON keeps an absent argPattern or cwd apart from an empty one
  const source = JSON.stringify([
    entry.id,
    entry.pattern,
    entry.argPattern ?? null,
    entry.cwd ?? null,
    env.home,
    env.platform,
  ]);
  let parts = partsBySource.get(source);
  if (!parts) {
    parts = compileParts(entry, env);
    if (partsBySource.size >= MAX_CACHED_PARTS) partsBySource.delete(partsBySource.keys().next().value!);
    partsBySource.set(source, parts);
  }
  return parts;
}

function compileParts(entry: AllowlistEntry, env: MatchEnv): EntryParts {
  const c: EntryParts = { kind: "any" };
  try {
    if (entry.argPattern !== undefined) c.argRe = new RegExp(entry.argPattern);
  } catch (error) {
    c.broken = `entry ${entry.id} has an invalid argPattern (${(error as Error).message})`;
  }
  try {
    if (entry.cwd !== undefined) c.cwdRe = globRegExp(normalizePattern(entry.cwd, env), env.platform);
  } catch (error) {
    c.broken = `entry ${entry.id} has an invalid cwd glob (${(error as Error).message})`;
  }
  const kind = patternKind(entry.pattern);
  if (kind === "bare") c.kind = "bare";
  else if (kind !== "any") {
    const normalized = normalizePattern(entry.pattern, env);
    const scanned = picomatch.scan(normalized);
    if (scanned.isGlob) {
      c.kind = "glob";
      const base = scanned.base;
      if (base) c.globBase = normalizeMatchPath(base, env.platform);
      try {
        c.glob = globRegExp(normalized, env.platform);
      } catch (error) {
        c.broken = `entry ${entry.id} has an invalid pattern (${(error as Error).message})`;
      }
    } else {
      c.kind = "exact";
      c.exactKey = normalizeMatchPath(normalized, env.platform);
    }
  }
  return c;
}

export function compileAllowlist(file: ApprovalsFile, agentId: string, env: MatchEnv): CompiledAllowlist {
  let perFile = compiledByFile.get(file);
  if (!perFile) {
    perFile = new Map();
    compiledByFile.set(file, perFile);
  }
  const key = `${agentId}\0${env.home}\0${env.platform}`;
  const cached = perFile.get(key);
  if (cached) return cached;
  const compiled: CompiledAllowlist = {
    entries: [],
    exact: new Map(),
    bare: new Map(),
    any: [],
    globs: [],
    globsByRoot: new Map(),
  };
  effectiveAllowlist(file, agentId).forEach(({ agentId: owner, entry }, order) => {
    if (patternKind(entry.pattern) === "mcp") return; // an MCP tool, never a program (mcp-entry.ts)
    const c: CompiledEntry = { agentId: owner, entry, order, ...compiledParts(entry, env) };
    if (c.kind === "any") compiled.any.push(c);
    else if (c.kind === "bare") pushTo(compiled.bare, bareKey(entry.pattern, env.platform), c);
    else if (c.kind === "glob") {
      compiled.globs.push(c);
      pushTo(compiled.globsByRoot, rootOf(c.globBase ?? ""), c);
    } else pushTo(compiled.exact, c.exactKey!, c);
    compiled.entries.push(c);
  });
  perFile.set(key, compiled);
  return compiled;
}

/** First folder of an absolute path (`usr` for `/usr/bin/git`, `c:` for `c:/x`); "" when there is none. */
function rootOf(p: string): string {
  const start = p.startsWith("/") ? 1 : 0;
  const end = p.indexOf("/", start);
  return end === -1 ? "" : p.slice(start, end);
}

function pushTo(map: Map<string, CompiledEntry[]>, key: string, value: CompiledEntry): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export type SegmentMatch = { matched: CompiledEntry } | { matched: null; missReason: string };

export interface MatchContext {
  cwd: string;
  now: number;
  platform: NodeJS.Platform;
  /**
   * The agent id is only claimed (docs/decisions.md "Proven identity"): only the every-agent (`*`)
   * entries cover it — an agent's own entries, and the uses they count, need its proof.
   */
  unproven?: boolean;
}

/** Entries whose pattern names this segment's executable, in allowlist order. */
function candidates(
  compiled: CompiledAllowlist,
  segment: Segment,
  platform: NodeJS.Platform,
): CompiledEntry[] {
  if (segment.resolvedPath === null) return [];
  const real = normalizeMatchPath(segment.resolvedPath, platform);
  const found: CompiledEntry[] = compiled.any.slice();
  const exact = compiled.exact.get(real);
  if (exact) for (const c of exact) found.push(c);
  if (segment.foundVia === "path" && segment.foundPath) {
    const name = (platform === "win32" ? path.win32 : path.posix).basename(segment.foundPath);
    const bare = compiled.bare.get(bareKey(name, platform));
    if (bare) for (const c of bare) found.push(c);
  }
  const root = rootOf(real);
  matchGlobs(compiled.globsByRoot.get(""), real, found);
  if (root !== "") matchGlobs(compiled.globsByRoot.get(root), real, found);
  if (found.length > 1) found.sort((a, b) => a.order - b.order);
  return found;
}

function matchGlobs(globs: CompiledEntry[] | undefined, real: string, found: CompiledEntry[]): void {
  if (!globs) return;
  for (const g of globs) {
    if (g.globBase !== undefined && !real.startsWith(g.globBase)) continue;
    if (g.glob?.test(real)) found.push(g);
  }
}

/** Why an entry whose pattern fits does not cover the segment, or null when it does. */
function entryProblem(c: CompiledEntry, segment: Segment, ctx: MatchContext): string | null {
  const id = c.entry.id;
  if (c.broken) return c.broken;
  if (ctx.unproven && c.agentId !== "*")
    return `entry ${id} is agent ${c.agentId}'s own, and this request did not prove it comes from that agent`;
  const liveness = entryLiveness(c.entry, ctx.now);
  if (liveness === "expired") return `entry ${id} expired`;
  if (liveness === "used-up") return `entry ${id} is used up`;
  if (c.cwdRe && segment.cwdUnknown) {
    return `entry ${id} applies only in ${c.entry.cwd}, and after a cd the folder is known only when it runs`;
  }
  if (c.cwdRe && !c.cwdRe.test(normalizeMatchPath(ctx.cwd, ctx.platform))) {
    return `entry ${id} applies only in ${c.entry.cwd} (cwd is ${ctx.cwd})`;
  }
  if (c.argRe) {
    const args = segment.argv.slice(1).join(" ");
    if (!c.argRe.test(args))
      return `entry ${id}'s argPattern ${c.entry.argPattern} does not match "${shorten(args)}"`;
  }
  return null;
}

/**
 * The entry that covers a segment, or why none does. A segment running inline code prefers an entry
 * with an argPattern (only that kind covers the inline-code flag).
 */
export function matchSegment(compiled: CompiledAllowlist, segment: Segment, ctx: MatchContext): SegmentMatch {
  if (segment.resolvedPath === null) {
    return {
      matched: null,
      missReason: `${segment.executable} is not resolved: ${segment.resolveError ?? "unknown"}`,
    };
  }
  const fitting = candidates(compiled, segment, ctx.platform);
  const problems: string[] = [];
  let first: CompiledEntry | null = null;
  for (const c of fitting) {
    const problem = entryProblem(c, segment, ctx);
    if (problem) {
      problems.push(problem);
      continue;
    }
    if (!segment.inlineCode || c.argRe) return { matched: c };
    first ??= c;
  }
  if (first) return { matched: first };
  if (problems.length > 0) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    return { matched: null, missReason: `${problems[0]}${more}` };
  }
  const bareName = (ctx.platform === "win32" ? path.win32 : path.posix).basename(segment.executable);
  if (segment.foundVia !== "path" && compiled.bare.has(bareKey(bareName, ctx.platform))) {
    return {
      matched: null,
      missReason: `${bareKey(bareName, ctx.platform)} (bare) matches only commands found through PATH`,
    };
  }
  return { matched: null, missReason: `no entry matches ${segment.resolvedPath}` };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
