// The text-level rules of bash words that tree-sitter-bash leaves to its users: quote removal in plain and
// double-quoted text, `$'…'` escapes, and which unquoted characters glob, brace-expand or name a home
// folder. The tree decides where words begin and end; these functions only read the text of one token.
import { ShellSyntaxError, type WordPart } from "./shell-ast.js";

/** Unquoted text of one `word` token. `wordStart`: the token begins its shell word (a `~` there is a tilde). */
export function unquotedParts(
  text: string,
  offset: number,
  wordStart: boolean,
  restOfWord: string,
): WordPart[] {
  const parts: WordPart[] = [];
  let lit = "";
  const flush = () => {
    if (lit) parts.push({ kind: "lit", value: lit, quoted: false });
    lit = "";
  };
  let i = 0;
  if (wordStart && text.startsWith("~")) {
    const user = /^~([A-Za-z0-9._-]*)/.exec(text)?.[1] ?? "";
    const next = restOfWord[1 + user.length];
    if (next === undefined || next === "/") {
      parts.push({ kind: "tilde", user });
      i = 1 + user.length;
    }
  }
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined) throw new ShellSyntaxError("a trailing backslash is not analysed", offset + i);
      i++;
      if (next === "\n") continue;
      flush();
      // an escaped character is quoted: never a glob, an operator or a reserved word
      parts.push({ kind: "lit", value: next, quoted: true });
      continue;
    }
    if (c === "*" || c === "?" || (c === "[" && restOfWord.indexOf("]", i + 1) !== -1)) {
      flush();
      parts.push({ kind: "glob", text: c });
      continue;
    }
    if (c === "{" || c === "}") {
      flush();
      parts.push({ kind: "brace", text: c });
      continue;
    }
    // anything tree-sitter should have made a node of (or bash would split on) is refused, not guessed
    if (/[\s$`'"()<>;&|]/.test(c)) {
      if (c === "$" && i === text.length - 1 && restOfWord.length === text.length) {
        lit += c; // a lone trailing `$` is literal
        continue;
      }
      throw new ShellSyntaxError(`unexpected ${JSON.stringify(c)} in a word`, offset + i);
    }
    lit += c;
  }
  flush();
  return parts;
}

/** Text between the quotes of `"…"` (or an unquoted here-document body) with no expansions in it. */
export function doubleQuotedLiteral(text: string, offset: number): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === "\n") {
        i++;
        continue;
      }
      if (next !== undefined && '$`\\"'.includes(next)) {
        out += next;
        i++;
        continue;
      }
      out += c;
      continue;
    }
    if (
      c === "`" ||
      (c === "$" && i + 1 < text.length && /[A-Za-z0-9_{([@*#?$!-]/.test(text[i + 1] as string))
    ) {
      throw new ShellSyntaxError("an expansion inside double quotes was not recognised", offset + i);
    }
    out += c;
  }
  return out;
}

const ANSI_C_SIMPLE: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

export type AnsiC = { ok: true; value: string } | { ok: false; why: string };

/**
 * The value of a `$'…'` string, given the text between the quotes. Escapes whose value depends on the
 * locale (`\u`, `\U`), control escapes (`\c`) and anything that yields a NUL byte (bash cuts the word
 * there, so `$'-c\x00'` is `-c`) are not understood: the word is then refused rather than guessed.
 */
export function decodeAnsiC(body: string): AnsiC {
  let out = "";
  let i = 0;
  while (i < body.length) {
    const c = body[i] as string;
    if (c !== "\\") {
      out += c;
      i++;
      continue;
    }
    const e = body[i + 1] ?? "";
    i += 2;
    if (e in ANSI_C_SIMPLE) {
      out += ANSI_C_SIMPLE[e];
    } else if (e === "x") {
      const m = /^[0-9A-Fa-f]{1,2}/.exec(body.slice(i));
      if (!m) {
        out += "\\x";
        continue;
      }
      i += m[0].length;
      out += String.fromCharCode(parseInt(m[0], 16));
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{0,2}/.exec(body.slice(i)) as RegExpExecArray;
      i += m[0].length;
      out += String.fromCharCode(parseInt(e + m[0], 8) & 0xff);
    } else if (e === "u" || e === "U" || e === "c") {
      return { ok: false, why: `uses \\${e}, whose value depends on the locale or the next character` };
    } else {
      out += `\\${e}`;
    }
  }
  if (out.includes("\0")) return { ok: false, why: "holds a NUL byte, where bash cuts the word" };
  // a byte above 0x7f from \x or octal is a raw byte to bash, not this character
  if (/[\u0080-\u00ff]/.test(out) && /\\(x[89a-fA-F]|[2-3][0-7]{2})/.test(body))
    return { ok: false, why: "holds raw bytes that are not UTF-8 text" };
  return { ok: true, value: out };
}
