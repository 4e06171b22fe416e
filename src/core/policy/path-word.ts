// How the shell turns one word into the words a program receives, as far as that can be known before it
// runs (the read rule, read-rule.ts): brace expansion, then `~`, then parameters from the environment
// the command really runs with, then quote removal — bash's order. What is left of a glob is a pattern
// the caller expands against the file system (io/operand-files.ts). Anything whose value is known only
// when it runs (a command substitution, a variable the script sets or the environment lacks, `~user`,
// arithmetic) makes the word unknown, and an unknown word where a program reads files needs a person.
import type { Word, WordPart } from "./shell-ast.js";

/** One character of an expanded word; `glob`: an unquoted `*`, `?` or `[` the shell matches against names. */
export interface WordChar {
  c: string;
  glob?: true;
  /** Quoted (or the result of an expansion): never a glob character, never a bracket's end. */
  quoted?: true;
}

export type WordValues = { ok: true; words: WordChar[][] } | { ok: false; why: string };

export interface WordContext {
  /** The environment the command runs with (the child's, exec-policy.md "Running"). */
  env: Readonly<Record<string, string | undefined>>;
  /** The home folder `~` names when the environment has no HOME. */
  home: string;
  /** The folder the command runs in, or null when a `cd` before it makes that known only when it runs. */
  cwd: string | null;
  /** True for a variable the command line itself may set (then its value is known only when it runs). */
  setInScript: (name: string) => boolean;
}

/** More alternatives than this from braces and the word is not worked out (it needs a person). */
export const MAX_BRACE_WORDS = 64;

/** Variables the shell sets itself, whatever the environment says: their value is known only when it runs. */
// prettier-ignore
const SHELL_SET = new Set([
  "OLDPWD", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "UID", "EUID", "PPID", "SHLVL", "HOSTNAME", "HOSTTYPE",
  "OSTYPE", "MACHTYPE", "PIPESTATUS", "IFS", "EPOCHSECONDS", "EPOCHREALTIME", "OPTIND", "OPTARG", "REPLY", "_",
  "GROUPS", "FUNCNAME", "DIRSTACK", "HISTCMD", "COLUMNS", "LINES", "BASHPID", "BASH_COMMAND", "SHELLOPTS",
  "BASHOPTS", "COMP_WORDS", "status", "pipestatus", "argv", "path", "cdpath", "psvar", "ZSH_SUBSHELL",
]);

type Tok =
  | { t: "ch"; c: string; quoted: boolean }
  | { t: "glob"; c: string }
  | { t: "open" }
  | { t: "close" }
  | { t: "seq"; text: string }
  | { t: "tilde" }
  | { t: "var"; name: string; quoted: boolean };

const PARAM_NAME = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/;

function tokens(parts: readonly WordPart[]): Tok[] | { why: string } | "stream" {
  const out: Tok[] = [];
  for (const part of parts) {
    switch (part.kind) {
      case "lit":
        for (const c of part.value) out.push({ t: "ch", c, quoted: part.quoted });
        break;
      case "glob":
        if (part.text.length !== 1) return { why: `${part.text} is a pattern that is not worked out` };
        out.push({ t: "glob", c: part.text });
        break;
      case "brace":
        if (part.text === "{") out.push({ t: "open" });
        else if (part.text === "}") out.push({ t: "close" });
        else out.push({ t: "seq", text: part.text });
        break;
      case "tilde":
        if (part.user !== "") return { why: `~${part.user} names a folder known only when it runs` };
        out.push({ t: "tilde" });
        break;
      case "param": {
        const m = PARAM_NAME.exec(part.text);
        if (!m) return { why: `${part.text} is known only when it runs` };
        out.push({ t: "var", name: (m[1] ?? m[2]) as string, quoted: part.quoted });
        break;
      }
      case "procsubst":
        if (parts.length === 1) return "stream"; // `<(…)`: a pipe to a command analysed on its own
        return { why: `${part.text} names a pipe inside a longer word` };
      case "cmdsubst":
        return { why: `${part.text} is known only when it runs` };
      case "arith":
        return { why: `${part.text} is worked out only when it runs` };
      case "opaque":
        return { why: part.why };
    }
  }
  return out;
}

/** Bash's brace expansion of a token list (a `{…}` with a top-level comma, or a `{a..b}` sequence). */
function braceExpand(toks: Tok[], limit: number): Tok[][] | null {
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i] as Tok;
    if (tok.t === "seq") {
      const values = sequence(tok.text);
      if (values === null) continue;
      const prefix = toks.slice(0, i);
      const rest = braceExpand(toks.slice(i + 1), limit);
      if (rest === null) return null;
      const out: Tok[][] = [];
      for (const v of values)
        for (const r of rest) {
          out.push([...prefix, ...[...v].map((c): Tok => ({ t: "ch", c, quoted: true })), ...r]);
          if (out.length > limit) return null;
        }
      return out;
    }
    if (tok.t !== "open") continue;
    // its matching close, and the top-level commas in between
    let depth = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i + 1; j < toks.length; j++) {
      const u = toks[j] as Tok;
      if (u.t === "open") depth++;
      else if (u.t === "close") {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (u.t === "ch" && !u.quoted && u.c === "," && depth === 0) commas.push(j);
    }
    if (close === -1) {
      toks[i] = { t: "ch", c: "{", quoted: true }; // unmatched: literal
      continue;
    }
    const inner = toks.slice(i + 1, close);
    const seqText = inner.every((u) => u.t === "ch" && !u.quoted)
      ? inner.map((u) => (u as { c: string }).c).join("")
      : null;
    const seqValues = commas.length === 0 && seqText !== null ? sequence(`{${seqText}}`) : null;
    if (commas.length === 0 && seqValues === null) {
      // `{x}` is literal text to bash; look for braces further on
      toks[i] = { t: "ch", c: "{", quoted: true };
      toks[close] = { t: "ch", c: "}", quoted: true };
      continue;
    }
    const choices: Tok[][] =
      seqValues !== null
        ? seqValues.map((v) => [...v].map((c): Tok => ({ t: "ch", c, quoted: true })))
        : [i, ...commas].map((start, k) => toks.slice(start + 1, [...commas, close][k] as number));
    const prefix = toks.slice(0, i);
    const suffix = toks.slice(close + 1);
    const out: Tok[][] = [];
    for (const choice of choices) {
      const expanded = braceExpand([...prefix, ...choice, ...suffix], limit);
      if (expanded === null) return null;
      out.push(...expanded);
      if (out.length > limit) return null;
    }
    return out;
  }
  return [
    toks.map((u) =>
      u.t === "open" || u.t === "close" ? { t: "ch", c: u.t === "open" ? "{" : "}", quoted: true } : u,
    ),
  ];
}

/** The values of `{1..3}`, `{a..e}`, `{0..10..2}`; null when it is not a sequence bash expands. */
function sequence(text: string): string[] | null {
  const m = /^\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}$/.exec(text);
  if (!m) return null;
  const [, a, b, s] = m as unknown as [string, string, string, string | undefined];
  const numeric = /\d/.test(a);
  if (numeric !== /\d/.test(b)) return null;
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(s ?? 1)));
  if (Math.abs(to - from) / step > MAX_BRACE_WORDS) return null;
  const width = numeric && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.length, b.length) : 0;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step)
    out.push(numeric ? String(v).padStart(width, "0") : String.fromCharCode(v));
  return out;
}

/** The tokens with every brace as plain text (a shell that does no brace expansion). */
function literalBraces(toks: readonly Tok[]): Tok[] {
  return toks.map((u) =>
    u.t === "open" || u.t === "close" || u.t === "seq"
      ? { t: "ch", c: u.t === "open" ? "{" : u.t === "close" ? "}" : u.text, quoted: true }
      : u,
  );
}

const quotedChars = (text: string): WordChar[] => [...text].map((c) => ({ c, quoted: true }));

/** `~` and `~+` at the start of a word (after brace expansion a `~` may start one, as bash sees it). */
function leadingTilde(
  toks: Tok[],
  ctx: WordContext,
): { chars: WordChar[]; used: number } | { why: string } | null {
  const first = toks[0];
  if (first?.t === "tilde") return { chars: quotedChars(homeOf(ctx)), used: 1 };
  if (first?.t !== "ch" || first.quoted || first.c !== "~") return null;
  let end = 1;
  while (end < toks.length) {
    const u = toks[end] as Tok;
    if (u.t === "ch" && !u.quoted && u.c === "/") break;
    if (u.t !== "ch" || u.quoted) return null; // `~"x"` or `~$x`: not a tilde prefix
    end++;
  }
  const prefix = toks
    .slice(1, end)
    .map((u) => (u as { c: string }).c)
    .join("");
  if (prefix === "") return { chars: quotedChars(homeOf(ctx)), used: end };
  if (prefix === "+") {
    if (ctx.cwd === null) return { why: "~+ names a folder a cd before it makes known only when it runs" };
    return { chars: quotedChars(ctx.cwd), used: end };
  }
  return { why: `~${prefix} names a folder known only when it runs` };
}

function homeOf(ctx: WordContext): string {
  return ctx.env.HOME ?? ctx.home;
}

function variable(name: string, quoted: boolean, ctx: WordContext): WordChar[] | { why: string } {
  if (name === "PWD") {
    if (ctx.cwd === null) return { why: "$PWD after a cd is known only when it runs" };
    return quotedChars(ctx.cwd);
  }
  if (SHELL_SET.has(name) || name.startsWith("BASH") || ctx.setInScript(name))
    return { why: `$${name} is known only when it runs` };
  const value = ctx.env[name];
  if (value === undefined) return { why: `$${name} is not set where the command runs` };
  // unquoted, a value is split into words and globbed again: not worked out here
  if (!quoted && /[\s*?[]/.test(value)) return { why: `$${name} is split or globbed when it runs` };
  return quotedChars(value);
}

/**
 * The words `word` becomes, each a list of characters (glob characters marked), or why that is known only
 * when it runs. A process substitution alone becomes no file name (the pipe it names is not a file).
 */
export function wordValues(word: Word, ctx: WordContext): WordValues {
  const toks = tokens(word.parts);
  if (toks === "stream") return { ok: true, words: [] };
  if ("why" in toks) return { ok: false, why: toks.why };
  const quotedPart = word.parts.some(
    (p) => (p.kind === "lit" && p.quoted) || ((p.kind === "param" || p.kind === "cmdsubst") && p.quoted),
  );
  const expanded = braceExpand([...toks], MAX_BRACE_WORDS);
  if (expanded === null)
    return { ok: false, why: `${word.raw} expands to more than ${MAX_BRACE_WORDS} words` };
  // POSIX sh (dash) expands no braces: the word as written is a file name there, judged as well
  const braces = toks.some((u) => u.t === "open" || u.t === "seq");
  const alternatives = braces ? [...expanded, literalBraces(toks)] : expanded;
  const words: WordChar[][] = [];
  for (const alt of alternatives) {
    const out: WordChar[] = [];
    let from = 0;
    const tilde = leadingTilde(alt, ctx);
    if (tilde && "why" in tilde) return { ok: false, why: tilde.why };
    if (tilde) {
      out.push(...tilde.chars);
      from = tilde.used;
    }
    for (let i = from; i < alt.length; i++) {
      const u = alt[i] as Tok;
      if (u.t === "ch") out.push(u.quoted ? { c: u.c, quoted: true } : { c: u.c });
      else if (u.t === "glob") out.push({ c: u.c, glob: true });
      else if (u.t === "tilde") out.push(...quotedChars(homeOf(ctx)));
      else if (u.t === "var") {
        const value = variable(u.name, u.quoted, ctx);
        if ("why" in value) return { ok: false, why: value.why };
        out.push(...value);
      } else out.push({ c: u.t === "open" ? "{" : u.t === "close" ? "}" : u.text, quoted: true });
    }
    // an unquoted expansion that came to nothing is no word at all; `""` is an empty word
    if (out.length > 0 || quotedPart) words.push(out);
    // bash expands `~` after the `=` of a word that looks like an assignment (`if=~/x`): both readings
    const assigned = assignmentTilde(out, ctx);
    if (assigned) words.push(assigned);
  }
  return { ok: true, words };
}

/** `NAME=~/…` as bash reads an argument that looks like an assignment, or null. */
function assignmentTilde(chars: WordChar[], ctx: WordContext): WordChar[] | null {
  const text = chars.map((ch) => ch.c).join("");
  const m = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(text);
  if (!m || chars.slice(0, m[0].length).some((ch) => ch.quoted)) return null;
  const at = m[0].length;
  const tilde = chars[at];
  const next = chars[at + 1];
  if (tilde?.c !== "~" || tilde.quoted || (next !== undefined && next.c !== "/" && next.c !== ":"))
    return null;
  return [...chars.slice(0, at), ...quotedChars(homeOf(ctx)), ...chars.slice(at + 1)];
}

export function textOf(chars: readonly WordChar[]): string {
  let text = "";
  for (const ch of chars) text += ch.c;
  return text;
}

export function hasGlob(chars: readonly WordChar[]): boolean {
  return chars.some((ch) => ch.glob === true);
}

/**
 * Whether `name` is one a shell script could set: it appears in `text` other than right after `$` or `${`
 * (`X=1`, `read X`, `for X in`, `export X`, `printf -v X`…). Over-matching only makes more words unknown.
 */
export function namedInText(texts: readonly string[], name: string): boolean {
  const re = new RegExp(`(^|[^A-Za-z0-9_])${name}(?![A-Za-z0-9_])`, "g");
  for (const text of texts) {
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const at = m.index + m[1]!.length;
      const before = text.slice(Math.max(0, at - 2), at);
      if (!(before.endsWith("$") || before === "${")) return true;
    }
  }
  return false;
}
