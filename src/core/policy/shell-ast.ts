// The command tree the analyser walks, built from tree-sitter-bash's syntax tree by shell-tree-sitter.ts
// (and cross-checked against sh-syntax by shell-script.ts). Only what the policy needs is kept.

export interface Word {
  /** Source text of the word, quotes included. */
  raw: string;
  parts: WordPart[];
}

export type WordPart =
  /** Literal text after quote removal; `quoted` text is never globbed or split. */
  | { kind: "lit"; value: string; quoted: boolean }
  /** `$x`, `${x…}`: substitutions inside the braces are kept; `quoted`: inside double quotes (not split). */
  | { kind: "param"; text: string; subs: Script[]; quoted: boolean }
  | { kind: "cmdsubst"; text: string; script: Script; backtick: boolean; quoted: boolean }
  | { kind: "arith"; text: string; subs: Script[] }
  | { kind: "procsubst"; text: string; script: Script }
  /** Unquoted glob characters or an extglob `@(…)`. */
  | { kind: "glob"; text: string }
  /** Unquoted `{` or `}` (brace expansion). */
  | { kind: "brace"; text: string }
  /** Leading `~` (user "") or `~user`. */
  | { kind: "tilde"; user: string }
  /** Text the reader keeps but the analyser does not model (`$'\u…'`, extglob patterns): never understood. */
  | { kind: "opaque"; text: string; why: string };

export interface Heredoc {
  body: string;
  /** Quoted delimiter: the body is taken literally. */
  quoted: boolean;
  subs: Script[];
  /** The expansions of an unquoted body, in order (each must be understood like a word's). */
  parts: WordPart[];
}

export interface Redirect {
  op: string;
  /** `2` in `2>`; `{var}` form kept as written. */
  fd: string | null;
  target: Word | null;
  heredoc?: Heredoc;
}

export interface Assignment {
  name: string;
  /** One word, or the elements of an array assignment `x=(a b)`. */
  values: Word[];
  raw: string;
  /** `x[i]=…`: the subscript text (bash evaluates it as arithmetic for indexed arrays). */
  subscript?: string;
  /** `x=(…)`. */
  array?: boolean;
}

export type CompoundType =
  | "subshell"
  | "group"
  | "if"
  | "while"
  | "until"
  | "for"
  | "select"
  | "case"
  | "arith"
  | "test"
  | "arith-for";

export type Command =
  | { kind: "simple"; assigns: Assignment[]; words: Word[]; redirs: Redirect[] }
  | {
      kind: "compound";
      type: CompoundType;
      bodies: Script[];
      /** Words the shell expands (for/select lists, case subject and patterns, [[ ]] operands). */
      words: Word[];
      /** Arithmetic texts of `(( ))` / `for (( ))`, with their substitutions. */
      arith: { text: string; subs: Script[] }[];
      redirs: Redirect[];
      /** The variable `for`/`select` assigns. */
      variable?: string;
    }
  | { kind: "function"; name: string; body: Command }
  | { kind: "coproc"; body: Command };

export interface Pipeline {
  commands: Command[];
  negated: boolean;
  timed: boolean;
}

export interface Statement {
  pipelines: Pipeline[];
  background: boolean;
  /** UTF-16 offset of the statement's first token in the parsed text. */
  start: number;
}

export type Script = Statement[];

export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "ShellSyntaxError";
  }
}

/** Scripts nested in a word part (command and process substitutions, and those inside `${…}`/`$((…))`). */
export function subsOf(part: WordPart): Script[] {
  switch (part.kind) {
    case "cmdsubst":
    case "procsubst":
      return [part.script];
    case "param":
    case "arith":
      return part.subs;
    default:
      return [];
  }
}
