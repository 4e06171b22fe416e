// What the analyser understands of a shell word (exec-policy.md "Analysing a command", positive model).
// A word is understood when every part of it is on a short, named list: literal text, `~`, a plain
// `$NAME`/`${NAME}` or special parameter, a command or process substitution (its script is analysed
// as segments of its own), arithmetic on plain numbers, a simple glob, a brace expansion. Anything
// else — an operator inside `${…}`, arithmetic on variables, indirection, subscripts, `@P`, constructs
// nobody listed — is not understood, and the command needs a person. Nothing is ever guessed.
import type { Word, WordPart } from "./shell-ast.js";

export type WordMeaning =
  /** The value is known: quote removal only. */
  | { kind: "literal"; value: string }
  /**
   * The value is known only when it runs, but working it out cannot run code. `splits`: unquoted, so it
   * may become several words or none (and a file name from a glob may look like an option).
   */
  | { kind: "dynamic"; text: string; splits: boolean }
  /** Not understood: `why` says which part and why, for the explanation. */
  | { kind: "unknown"; text: string; why: string };

/** `$NAME`, `$1`, `$?`, `${NAME}`, `${10}`, `${#NAME}` (a length): parameters whose expansion runs nothing. */
const PLAIN_PARAMETER =
  /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[#?$!*@-]|\{(?:#?[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!*@-])\})$/;

/** `$((…))` / `$[…]` whose content is numbers and operators only: bash evaluates nothing else. */
export function plainArithmetic(text: string): boolean {
  // numbers: decimal, 0x…, octal, BASE#DIGITS (digits may be letters, @ and _)
  const stripped = text.replace(/\b(?:[0-9]+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]+|[0-9]+)\b/g, " ");
  return /^[\s+\-*/%<>=!&|^~?:(),]*$/.test(stripped) && !/(^|[^=!<>])=(?!=)/.test(stripped);
}

function arithmeticBody(text: string): string {
  return text.replace(/^\$(\(\(|\[)/, "").replace(/(\)\)|\])$/, "");
}

/** Why one part of a word is not understood, or null when it is. */
export function partProblem(part: WordPart): string | null {
  switch (part.kind) {
    case "lit":
    case "glob":
    case "brace":
    case "cmdsubst":
    case "procsubst":
      return null;
    case "tilde":
      return null;
    case "param":
      return PLAIN_PARAMETER.test(part.text)
        ? null
        : `${part.text} uses a parameter operation (indirection, subscript, default, pattern, @P…) that is not analysed`;
    case "arith":
      return plainArithmetic(arithmeticBody(part.text))
        ? null
        : `${part.text} evaluates variables as arithmetic, which can run commands hidden in their values`;
    case "opaque":
      return part.why;
  }
}

/** `{a,b}` and `{1..3}` expand; `{}` or `{x}` are literal text to bash. */
function braceExpands(parts: readonly WordPart[]): boolean {
  return (
    parts.some((p) => p.kind === "brace" && p.text.length > 1) ||
    (parts.some((p) => p.kind === "brace") &&
      parts.some((p) => p.kind === "lit" && !p.quoted && (p.value.includes(",") || p.value.includes(".."))))
  );
}

export function understandWord(word: Word): WordMeaning {
  let value = "";
  let literal = true;
  let splits = false;
  const expands = braceExpands(word.parts);
  for (const part of word.parts) {
    if (part.kind === "brace" && !expands) {
      value += part.text;
      continue;
    }
    const problem = partProblem(part);
    if (problem !== null) return { kind: "unknown", text: word.raw, why: problem };
    switch (part.kind) {
      case "lit":
        value += part.value;
        break;
      case "tilde":
        if (part.user === "") value += "~";
        else literal = false;
        break;
      case "param":
      case "cmdsubst":
        literal = false;
        if (!part.quoted) splits = true;
        break;
      case "glob":
      case "brace":
        literal = false;
        splits = true;
        break;
      default:
        literal = false;
    }
  }
  return literal ? { kind: "literal", value } : { kind: "dynamic", text: word.raw, splits };
}
