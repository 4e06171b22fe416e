// A recursive-descent reader for bash scripts that builds the command tree of shell-ast.ts. It aims to
// split a script exactly where bash does; anything it does not understand is a ShellSyntaxError, which
// the analyser turns into a `parse-error` flag (a person decides), never into a guess.
import {
  ShellSyntaxError,
  type Assignment,
  type Command,
  type CompoundType,
  type Heredoc,
  type Pipeline,
  type Redirect,
  type Script,
  type Statement,
  type Word,
  type WordPart,
} from "./shell-ast.js";

const MAX_NESTING = 64;
const CONTROL_OPS = ["&&", "||", ";;&", ";;", ";&", "|&", "&", "|", ";", "(", ")", "\n"];
const REDIRECT_OPS = ["<<<", "<<-", "&>>", "<<", "<>", "<&", ">>", ">&", ">|", "&>", "<", ">"];
const RESERVED = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "time",
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "coproc",
]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
  redirect: Redirect;
}

/** Parses a whole script. Throws ShellSyntaxError. */
export function parseShell(text: string): Script {
  const parser = new ShellParser(text, 0);
  try {
    const script = parser.parseList(new Set(), false);
    parser.skipSeparatorsAndNewlines();
    if (!parser.atEnd()) parser.fail(`unexpected ${parser.describeHere()}`);
    parser.finishHeredocs();
    return script;
  } catch (error) {
    // deep nesting that is not a sub-list (`f() g() h() …`, `${${${…`) ends in a stack overflow
    if (error instanceof RangeError) throw new ShellSyntaxError("nested too deeply to analyse", parser.pos);
    throw error;
  }
}

class ShellParser {
  pos = 0;
  private pending: PendingHeredoc[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
  ) {
    if (depth > MAX_NESTING) this.fail("nested too deeply to analyse");
  }

  // ---- low-level scanning ---------------------------------------------------------------------

  atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  fail(message: string, at = this.pos): never {
    throw new ShellSyntaxError(message, at);
  }

  describeHere(): string {
    if (this.atEnd()) return "end of input";
    const ch = this.src[this.pos] as string;
    return ch === "\n" ? "newline" : `"${this.src.slice(this.pos, this.pos + 10)}"`;
  }

  private ch(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }

  private startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  /** Spaces, tabs, line continuations and comments; not newlines. */
  skipBlanks(): void {
    for (;;) {
      const c = this.ch();
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\\" && this.ch(1) === "\n") this.pos += 2;
      else if (c === "#") {
        while (!this.atEnd() && this.ch() !== "\n") this.pos++;
      } else return;
    }
  }

  /** Consumes one newline and then reads the bodies of any here-documents started on that line. */
  private newline(): void {
    this.pos++;
    if (this.pending.length) this.readHeredocBodies();
  }

  private skipNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.ch() === "\n") this.newline();
      else return;
    }
  }

  skipSeparatorsAndNewlines(): void {
    this.skipNewlines();
  }

  finishHeredocs(): void {
    if (this.pending.length) this.readHeredocBodies();
  }

  private controlOp(): string | null {
    for (const op of CONTROL_OPS) if (this.startsWith(op)) return op;
    return null;
  }

  /** A redirection operator at the cursor, with an optional fd prefix (`2>`, `{fd}>`); null if none. */
  private redirectAhead(): { fd: string | null; op: string; length: number } | null {
    const rest = this.src.slice(this.pos, this.pos + 64);
    const m = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?/.exec(rest);
    const fd = m?.[1] ?? null;
    const after = fd ? fd.length : 0;
    if (rest.startsWith("<(", after) || rest.startsWith(">(", after)) return null; // process substitution
    for (const op of REDIRECT_OPS) {
      if (rest.startsWith(op, after)) return { fd, op, length: after + op.length };
    }
    return null;
  }

  /**
   * The word at the cursor when it is entirely plain (no quotes or expansions), without consuming it:
   * `do` is a reserved word, `do$(x)` or `"do"` are not.
   */
  private peekPlainWord(): string | null {
    let end = this.pos;
    while (end < this.src.length && !/[ \t\n;&|()<>'"`$\\]/.test(this.src[end] as string)) end++;
    if (end === this.pos) return null;
    const next = this.src[end];
    if (next !== undefined && !/[ \t\n;&|()<>]/.test(next)) return null;
    return this.src.slice(this.pos, end);
  }

  private peekReserved(): string | null {
    const word = this.peekPlainWord();
    return word !== null && RESERVED.has(word) ? word : null;
  }

  private expectReserved(word: string): void {
    this.skipNewlines();
    if (this.peekReserved() !== word) this.fail(`expected "${word}" but found ${this.describeHere()}`);
    this.pos += word.length;
  }

  private sub(): ShellParser {
    const parser = new ShellParser(this.src, this.depth + 1);
    parser.pos = this.pos;
    parser.pending = this.pending;
    return parser;
  }

  // ---- lists, pipelines, commands -------------------------------------------------------------

  /** Statements until a stop word at command position, `)`, a case terminator or the end. */
  parseList(stopWords: ReadonlySet<string>, inParens: boolean): Script {
    const statements: Statement[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.atEnd()) break;
      const op = this.controlOp();
      if (op === ")") {
        if (!inParens) this.fail('unexpected ")"');
        break;
      }
      if (op === ";;" || op === ";&" || op === ";;&") break;
      const reserved = this.peekReserved();
      if (reserved && stopWords.has(reserved)) break;
      const start = this.pos;
      const pipelines = this.parseAndOr();
      this.skipBlanks();
      let background = false;
      const next = this.controlOp();
      if (next === "&") {
        background = true;
        this.pos += 1;
      } else if (next === ";") {
        this.pos += 1;
      } else if (next === "\n") {
        this.newline();
      } else if (next !== null && next !== ")" && next !== ";;" && next !== ";&" && next !== ";;&") {
        this.fail(`unexpected "${next}"`);
      } else if (next === null && !this.atEnd()) {
        const word = this.peekReserved();
        if (!word || !stopWords.has(word)) this.fail(`unexpected ${this.describeHere()}`);
      }
      statements.push({ pipelines, background, start });
    }
    return statements;
  }

  private parseAndOr(): Pipeline[] {
    const pipelines = [this.parsePipeline()];
    for (;;) {
      this.skipBlanks();
      if (this.startsWith("&&") || this.startsWith("||")) {
        this.pos += 2;
        this.skipNewlines();
        pipelines.push(this.parsePipeline());
      } else return pipelines;
    }
  }

  private parsePipeline(): Pipeline {
    let negated = false;
    let timed = false;
    for (;;) {
      this.skipBlanks();
      const reserved = this.peekReserved();
      if (reserved === "!") {
        negated = true;
        this.pos += 1;
      } else if (reserved === "time") {
        timed = true;
        this.pos += 4;
        this.skipBlanks();
        if (this.peekPlainWord() === "-p") this.pos += 2;
      } else break;
    }
    const commands = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.startsWith("||")) break;
      if (this.startsWith("|&") || this.startsWith("|")) {
        this.pos += this.startsWith("|&") ? 2 : 1;
        this.skipNewlines();
        commands.push(this.parseCommand());
      } else break;
    }
    return { commands, negated, timed };
  }

  private parseCommand(): Command {
    this.skipBlanks();
    if (this.atEnd()) this.fail("a command was expected but the input ended");
    if (this.startsWith("((")) {
      const saved = this.pos;
      try {
        this.pos += 2;
        const arith = this.readArithmetic("))");
        return this.withRedirects(compound("arith", [], [], [arith]));
      } catch (error) {
        if (!(error instanceof ShellSyntaxError)) throw error;
        this.pos = saved; // `((a) )` is a nested subshell
      }
    }
    if (this.ch() === "(") {
      this.pos++;
      const body = this.sub().parseAndAdvance(this, new Set(), true);
      this.expectOp(")");
      return this.withRedirects(compound("subshell", [body], [], []));
    }
    const op = this.controlOp();
    if (op !== null) this.fail(`unexpected ${op === "\n" ? "newline" : `"${op}"`}`);
    const reserved = this.peekReserved();
    switch (reserved) {
      case "{":
        return this.parseGroup();
      case "if":
        return this.parseIf();
      case "while":
      case "until":
        return this.parseLoop(reserved);
      case "for":
      case "select":
        return this.parseFor(reserved);
      case "case":
        return this.parseCase();
      case "function":
        return this.parseFunctionKeyword();
      case "[[":
        return this.parseTest();
      case "coproc":
        return this.parseCoproc();
      case null:
      case "!":
      case "time":
        return this.parseSimple();
      default:
        return this.fail(`unexpected "${reserved}"`);
    }
  }

  private expectOp(op: string): void {
    this.skipNewlines();
    if (!this.startsWith(op)) this.fail(`expected "${op}" but found ${this.describeHere()}`);
    this.pos += op.length;
  }

  private withRedirects<C extends Command & { redirs: Redirect[] }>(command: C): C {
    for (;;) {
      this.skipBlanks();
      const ahead = this.redirectAhead();
      if (!ahead) return command;
      command.redirs.push(this.parseRedirect(ahead));
    }
  }

  private parseGroup(): Command {
    this.pos += 1;
    const body = this.sub().parseAndAdvance(this, new Set(["}"]));
    this.expectReserved("}");
    return this.withRedirects(compound("group", [body], [], []));
  }

  /** Parses a list with a sub-parser (one nesting level deeper) and moves `outer` past it. */
  private parseAndAdvance(outer: ShellParser, stopWords: ReadonlySet<string>, inParens = false): Script {
    const script = this.parseList(stopWords, inParens);
    outer.pos = this.pos;
    return script;
  }

  private list(stopWords: string[]): Script {
    return this.sub().parseAndAdvance(this, new Set(stopWords));
  }

  private parseIf(): Command {
    this.pos += 2;
    const bodies: Script[] = [this.list(["then"])];
    this.expectReserved("then");
    bodies.push(this.list(["elif", "else", "fi"]));
    for (;;) {
      this.skipNewlines();
      const word = this.peekReserved();
      if (word === "elif") {
        this.pos += 4;
        bodies.push(this.list(["then"]));
        this.expectReserved("then");
        bodies.push(this.list(["elif", "else", "fi"]));
      } else if (word === "else") {
        this.pos += 4;
        bodies.push(this.list(["fi"]));
        this.expectReserved("fi");
        break;
      } else {
        this.expectReserved("fi");
        break;
      }
    }
    return this.withRedirects(compound("if", bodies, [], []));
  }

  private parseLoop(keyword: "while" | "until"): Command {
    this.pos += keyword.length;
    const condition = this.list(["do"]);
    this.expectReserved("do");
    const body = this.list(["done"]);
    this.expectReserved("done");
    return this.withRedirects(compound(keyword, [condition, body], [], []));
  }

  private parseDoBody(): Script {
    this.skipNewlines();
    if (this.peekReserved() === "{") {
      this.pos += 1;
      const body = this.list(["}"]);
      this.expectReserved("}");
      return body;
    }
    this.expectReserved("do");
    const body = this.list(["done"]);
    this.expectReserved("done");
    return body;
  }

  private parseFor(keyword: "for" | "select"): Command {
    this.pos += keyword.length;
    this.skipBlanks();
    if (keyword === "for" && this.startsWith("((")) {
      this.pos += 2;
      const arith = this.readArithmetic("))");
      this.skipBlanks();
      if (this.ch() === ";") this.pos++;
      const body = this.parseDoBody();
      return this.withRedirects(compound("arith-for", [body], [], [arith]));
    }
    const name = this.readWord();
    if (!name || !NAME.test(name.raw)) this.fail(`"${keyword}" needs a variable name`);
    const words: Word[] = [];
    this.skipNewlines();
    if (this.peekReserved() === "in") {
      this.pos += 2;
      for (;;) {
        this.skipBlanks();
        const c = this.ch();
        if (c === ";" || c === "\n" || this.atEnd()) break;
        const word = this.readWord();
        if (!word) this.fail(`unexpected ${this.describeHere()} in the word list`);
        words.push(word);
      }
      this.skipBlanks();
      if (this.ch() === ";") this.pos++;
    } else if (this.ch() === ";") {
      this.pos++;
    }
    const body = this.parseDoBody();
    return this.withRedirects(compound(keyword, [body], words, []));
  }

  private parseCase(): Command {
    this.pos += 4;
    this.skipBlanks();
    const subject = this.readWord();
    if (!subject) this.fail('"case" needs a word');
    const words: Word[] = [subject];
    const bodies: Script[] = [];
    this.expectReserved("in");
    for (;;) {
      this.skipNewlines();
      if (this.peekReserved() === "esac") {
        this.pos += 4;
        break;
      }
      if (this.atEnd()) this.fail('"case" is missing "esac"');
      if (this.ch() === "(") this.pos++;
      for (;;) {
        this.skipBlanks();
        const pattern = this.readWord();
        if (!pattern) this.fail(`a case pattern was expected but found ${this.describeHere()}`);
        words.push(pattern);
        this.skipBlanks();
        if (this.ch() === "|") {
          this.pos++;
          continue;
        }
        break;
      }
      this.expectOp(")");
      bodies.push(this.list(["esac"]));
      this.skipNewlines();
      const terminator = [";;&", ";;", ";&"].find((t) => this.startsWith(t));
      if (terminator) this.pos += terminator.length;
      else if (this.peekReserved() !== "esac") this.fail(`unexpected ${this.describeHere()} in "case"`);
    }
    return this.withRedirects(compound("case", bodies, words, []));
  }

  private parseFunctionKeyword(): Command {
    this.pos += "function".length;
    this.skipBlanks();
    const name = this.readWord();
    if (!name) this.fail('"function" needs a name');
    this.skipBlanks();
    if (this.startsWith("()")) this.pos += 2;
    else if (this.ch() === "(") {
      this.pos++;
      this.skipBlanks();
      this.expectOp(")");
    }
    this.skipNewlines();
    return { kind: "function", name: name.raw, body: this.parseCommand() };
  }

  private parseCoproc(): Command {
    this.pos += "coproc".length;
    this.skipBlanks();
    const word = this.peekPlainWord();
    if (word && NAME.test(word) && !RESERVED.has(word)) {
      const saved = this.pos;
      this.pos += word.length;
      this.skipBlanks();
      if (this.ch() === "(" || this.peekReserved() === "{")
        return { kind: "coproc", body: this.parseCommand() };
      this.pos = saved;
    }
    return { kind: "coproc", body: this.parseCommand() };
  }

  private parseTest(): Command {
    this.pos += 2;
    const words: Word[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.atEnd()) this.fail('"[[" is missing "]]"');
      if (this.peekPlainWord() === "]]") {
        this.pos += 2;
        break;
      }
      const op = ["&&", "||", "(", ")", "!", "<", ">"].find((o) => this.startsWith(o));
      if (op && !(op === "!" && this.peekPlainWord() !== "!")) {
        this.pos += op.length;
        continue;
      }
      const word = this.readWord();
      if (!word) this.fail(`unexpected ${this.describeHere()} in "[[ ]]"`);
      words.push(word);
      if (word.raw === "=~") {
        this.skipBlanks();
        const regex = this.readWord({ regex: true });
        if (!regex) this.fail('"=~" needs a regular expression');
        words.push(regex);
      }
    }
    return this.withRedirects(compound("test", [], words, []));
  }

  private parseSimple(): Command {
    const assigns: Assignment[] = [];
    const words: Word[] = [];
    const redirs: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.atEnd()) break;
      const ahead = this.redirectAhead();
      if (ahead) {
        redirs.push(this.parseRedirect(ahead));
        continue;
      }
      if (this.ch() === "(") {
        const only = words[0];
        if (
          words.length === 1 &&
          assigns.length === 0 &&
          redirs.length === 0 &&
          only &&
          NAME_OR_FN.test(only.raw)
        ) {
          this.pos++;
          this.skipBlanks();
          this.expectOp(")");
          this.skipNewlines();
          return { kind: "function", name: only.raw, body: this.parseCommand() };
        }
        this.fail('unexpected "("');
      }
      if (this.controlOp() !== null) break;
      const start = this.pos;
      const word = this.readWord();
      if (!word) this.fail(`unexpected ${this.describeHere()}`);
      const assignment = words.length === 0 ? ASSIGNMENT.exec(word.raw) : null;
      const arrayValue = word.raw.endsWith("=") && this.ch() === "(" ? this.readArrayValue() : null;
      if (assignment) {
        assigns.push({
          name: assignment[1] as string,
          values: arrayValue ?? [word],
          raw: this.src.slice(start, this.pos),
        });
      } else {
        words.push(word, ...(arrayValue ?? []));
      }
    }
    if (words.length === 0 && assigns.length === 0 && redirs.length === 0) {
      this.fail(`a command was expected but found ${this.describeHere()}`);
    }
    return { kind: "simple", assigns, words, redirs };
  }

  private readArrayValue(): Word[] {
    this.pos++; // (
    const values: Word[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.ch() === ")") {
        this.pos++;
        return values;
      }
      if (this.atEnd()) this.fail("an array value is missing its closing )");
      const word = this.readWord();
      if (!word) this.fail(`unexpected ${this.describeHere()} in an array value`);
      values.push(word);
    }
  }

  private parseRedirect(ahead: { fd: string | null; op: string; length: number }): Redirect {
    this.pos += ahead.length;
    this.skipBlanks();
    const target = this.readWord();
    if (!target) this.fail(`the redirection "${ahead.op}" needs a target`);
    const redirect: Redirect = { op: ahead.op, fd: ahead.fd, target };
    if (ahead.op === "<<" || ahead.op === "<<-") {
      const quoted = /['"\\]/.test(target.raw);
      const delimiter = target.parts.map((p) => (p.kind === "lit" ? p.value : rawOf(p))).join("");
      this.pending.push({ delimiter, stripTabs: ahead.op === "<<-", quoted, redirect });
    }
    return redirect;
  }

  private readHeredocBodies(): void {
    const pending = this.pending.splice(0);
    for (const doc of pending) {
      const lines: string[] = [];
      let found = false;
      while (!this.atEnd()) {
        const end = this.src.indexOf("\n", this.pos);
        const lineEnd = end === -1 ? this.src.length : end;
        let line = this.src.slice(this.pos, lineEnd);
        this.pos = end === -1 ? this.src.length : end + 1;
        if (doc.stripTabs) line = line.replace(/^\t+/, "");
        if (line === doc.delimiter) {
          found = true;
          break;
        }
        lines.push(line);
      }
      if (!found) this.fail(`the here-document is missing its end line "${doc.delimiter}"`);
      const body = lines.join("\n");
      const heredoc: Heredoc = { body, quoted: doc.quoted, subs: [] };
      if (!doc.quoted) heredoc.subs = substitutionsIn(body, this.depth + 1);
      doc.redirect.heredoc = heredoc;
    }
  }

  // ---- words ----------------------------------------------------------------------------------

  /** Reads one word; null when the cursor is at an operator, a blank or the end. */
  readWord(options: { regex?: boolean } = {}): Word | null {
    const start = this.pos;
    const parts: WordPart[] = [];
    let lit = "";
    const flush = () => {
      if (lit) parts.push({ kind: "lit", value: lit, quoted: false });
      lit = "";
    };
    let parens = 0;
    while (!this.atEnd()) {
      const c = this.ch();
      if (options.regex) {
        if (c === "(") parens++;
        else if (c === ")") {
          if (parens === 0) break;
          parens--;
        } else if ((c === " " || c === "\t" || c === "\n") && parens === 0) break;
        if (c === "(" || c === ")" || c === "|" || c === "<" || c === ">" || c === "&" || c === ";") {
          lit += c;
          this.pos++;
          continue;
        }
      }
      if (c === " " || c === "\t" || c === "\n" || c === ";" || c === "&" || c === "|") break;
      if (c === "(" || c === ")") {
        // extglob `@(…)`, `*(…)`, `+(…)`, `?(…)`, `!(…)`
        const prev = this.src[this.pos - 1];
        if (c === "(" && this.pos > start && prev !== undefined && "@*+?!".includes(prev)) {
          if ("*?".includes(prev) && parts.at(-1)?.kind === "glob" && !lit) parts.pop();
          else lit = lit.slice(0, -1);
          flush();
          const open = this.pos - 1;
          this.skipBalanced("(", ")");
          parts.push({ kind: "glob", text: this.src.slice(open, this.pos) });
          continue;
        }
        break;
      }
      if (c === "<" || c === ">") {
        if (this.ch(1) === "(") {
          flush();
          const open = this.pos;
          this.pos += 2;
          const script = this.sub().parseAndAdvance(this, new Set(), true);
          this.expectOp(")");
          parts.push({ kind: "procsubst", text: this.src.slice(open, this.pos), script });
          continue;
        }
        break;
      }
      if (c === "\\") {
        if (this.ch(1) === "\n") {
          this.pos += 2;
          continue;
        }
        if (this.pos + 1 >= this.src.length) {
          this.pos++;
          continue;
        }
        // an escaped character is quoted: never a glob, an operator or a reserved word
        flush();
        parts.push({ kind: "lit", value: this.ch(1), quoted: true });
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        flush();
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) this.fail("a single quote is not closed");
        parts.push({ kind: "lit", value: this.src.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        flush();
        this.pos++;
        parts.push(...this.readDoubleQuoted());
        continue;
      }
      if (c === "$") {
        if (this.ch(1) === "'") {
          flush();
          parts.push({ kind: "lit", value: this.readAnsiC(), quoted: true });
          continue;
        }
        if (this.ch(1) === '"') {
          flush();
          this.pos += 2;
          parts.push(...this.readDoubleQuoted());
          continue;
        }
        const dollar = this.readDollar();
        if (dollar) {
          flush();
          parts.push(dollar);
          continue;
        }
        lit += "$";
        this.pos++;
        continue;
      }
      if (c === "`") {
        flush();
        parts.push(this.readBackticks(false));
        continue;
      }
      if (c === "*" || c === "?" || (c === "[" && this.bracketCloses())) {
        flush();
        parts.push({ kind: "glob", text: c });
        this.pos++;
        continue;
      }
      if (c === "{" || c === "}") {
        flush();
        parts.push({ kind: "brace", text: c });
        this.pos++;
        continue;
      }
      if (c === "~" && this.pos === start) {
        const m = /^~([A-Za-z0-9._-]*)/.exec(this.src.slice(this.pos, this.pos + 256));
        const user = m?.[1] ?? "";
        const next = this.src[this.pos + 1 + user.length];
        if (next === undefined || next === "/" || /[ \t\n;&|()<>]/.test(next)) {
          parts.push({ kind: "tilde", user });
          this.pos += 1 + user.length;
          continue;
        }
      }
      lit += c;
      this.pos++;
    }
    flush();
    if (this.pos === start) return null;
    return { raw: this.src.slice(start, this.pos), parts };
  }

  /** Whether the `[` at the cursor starts a bracket expression (a `]` follows in the same word). */
  private bracketCloses(): boolean {
    for (let i = this.pos + 1; i < this.src.length; i++) {
      const c = this.src[i] as string;
      if (c === "]") return true;
      if (" \t\n;&|()<>".includes(c)) return false;
    }
    return false;
  }

  private skipBalanced(open: string, close: string): void {
    let depth = 0;
    while (!this.atEnd()) {
      const c = this.ch();
      if (c === "\\") {
        this.pos += 2;
        continue;
      }
      if (c === "'" || c === '"') {
        const end = this.src.indexOf(c, this.pos + 1);
        if (end === -1) this.fail("a quote is not closed");
        this.pos = end + 1;
        continue;
      }
      if (c === open) depth++;
      if (c === close) {
        depth--;
        if (depth === 0) {
          this.pos++;
          return;
        }
      }
      if (c === "$" || c === "`") {
        this.fail("substitutions inside glob patterns are not analysed");
      }
      this.pos++;
    }
    this.fail(`"${open}" is not closed`);
  }

  /** After an opening `"`; `untilEnd` reads a here-document body, where `"` is an ordinary character. */
  readDoubleQuoted(untilEnd = false): WordPart[] {
    const parts: WordPart[] = [];
    let lit = "";
    const flush = () => {
      if (lit) parts.push({ kind: "lit", value: lit, quoted: true });
      lit = "";
    };
    for (;;) {
      if (this.atEnd()) {
        if (untilEnd) break;
        this.fail("a double quote is not closed");
      }
      const c = this.ch();
      if (c === '"' && !untilEnd) {
        this.pos++;
        break;
      }
      if (c === "\\") {
        const next = this.ch(1);
        if (next === "\n") this.pos += 2;
        else if (next !== "" && ("$`\\".includes(next) || (next === '"' && !untilEnd))) {
          lit += next;
          this.pos += 2;
        } else {
          lit += c;
          this.pos++;
        }
        continue;
      }
      if (c === "$") {
        const dollar = this.readDollar(true);
        if (dollar) {
          flush();
          parts.push(dollar);
          continue;
        }
        lit += c;
        this.pos++;
        continue;
      }
      if (c === "`") {
        flush();
        parts.push(this.readBackticks(true));
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    if (parts.length === 0) parts.push({ kind: "lit", value: "", quoted: true });
    return parts;
  }

  private readAnsiC(): string {
    this.pos += 2; // $'
    let out = "";
    for (;;) {
      if (this.atEnd()) this.fail("a $'…' string is not closed");
      const c = this.ch();
      if (c === "'") {
        this.pos++;
        return out;
      }
      if (c !== "\\") {
        out += c;
        this.pos++;
        continue;
      }
      const e = this.ch(1);
      this.pos += 2;
      const simple: Record<string, string> = {
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
      if (e in simple) {
        out += simple[e];
      } else if (e === "x" || e === "u" || e === "U") {
        const max = e === "x" ? 2 : e === "u" ? 4 : 8;
        const m = new RegExp(`^[0-9A-Fa-f]{1,${max}}`).exec(this.src.slice(this.pos));
        if (!m) {
          out += `\\${e}`;
          continue;
        }
        this.pos += m[0].length;
        const code = parseInt(m[0], 16);
        out += code <= 0x10ffff ? String.fromCodePoint(code) : "\ufffd";
      } else if (/[0-7]/.test(e)) {
        const m = /^[0-7]{0,2}/.exec(this.src.slice(this.pos)) as RegExpExecArray;
        this.pos += m[0].length;
        out += String.fromCharCode(parseInt(e + m[0], 8) & 0xff);
      } else if (e === "c") {
        const ctl = this.ch();
        this.pos++;
        out += String.fromCharCode(ctl.charCodeAt(0) & 0x1f);
      } else {
        out += `\\${e}`;
      }
    }
  }

  /** `$(…)`, `$((…))`, `$[…]`, `${…}`, `$name`, `$1`, `$@`…; null for a lone `$`. */
  /** `inDouble`: inside double quotes, where a `'` within `${…}` is an ordinary character. */
  private readDollar(inDouble = false): WordPart | null {
    const start = this.pos;
    const next = this.ch(1);
    if (next === "(") {
      if (this.ch(2) === "(") {
        const saved = this.pos;
        try {
          this.pos += 3;
          const arith = this.readArithmetic("))");
          return { kind: "arith", text: this.src.slice(start, this.pos), subs: arith.subs };
        } catch (error) {
          if (!(error instanceof ShellSyntaxError)) throw error;
          this.pos = saved; // `$((a) )` is a command substitution of a subshell
        }
      }
      this.pos += 2;
      const script = this.sub().parseAndAdvance(this, new Set(), true);
      this.expectOp(")");
      return { kind: "cmdsubst", text: this.src.slice(start, this.pos), script, backtick: false };
    }
    if (next === "[") {
      this.pos += 2;
      const arith = this.readArithmetic("]");
      return { kind: "arith", text: this.src.slice(start, this.pos), subs: arith.subs };
    }
    if (next === "{") {
      this.pos += 2;
      const subs: Script[] = [];
      let depth = 1;
      while (depth > 0) {
        if (this.atEnd()) this.fail('"${" is not closed');
        const c = this.ch();
        if (c === "\\") this.pos += 2;
        else if (c === "'" && !inDouble) {
          const end = this.src.indexOf("'", this.pos + 1);
          if (end === -1) this.fail("a single quote is not closed");
          this.pos = end + 1;
        } else if (c === '"') {
          this.pos++;
          for (const part of this.readDoubleQuoted()) subs.push(...subsOf(part));
        } else if (c === "$" || c === "`") {
          const part = c === "`" ? this.readBackticks(inDouble) : this.readDollar(inDouble);
          if (part) subs.push(...subsOf(part));
          else this.pos++;
        } else if (c === "{") {
          depth++;
          this.pos++;
        } else if (c === "}") {
          depth--;
          this.pos++;
        } else this.pos++;
      }
      const text = this.src.slice(start, this.pos);
      return { kind: "param", text, subs, ...paramRisk(text) };
    }
    const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.src.slice(this.pos + 1, this.pos + 256));
    if (!m) return null;
    this.pos += 1 + m[0].length;
    return { kind: "param", text: this.src.slice(start, this.pos), subs: [] };
  }

  private readBackticks(inDoubleQuotes: boolean): WordPart {
    const start = this.pos;
    this.pos++;
    let inner = "";
    for (;;) {
      if (this.atEnd()) this.fail("a backtick is not closed");
      const c = this.ch();
      if (c === "`") {
        this.pos++;
        break;
      }
      if (c === "\\") {
        const next = this.ch(1);
        if (next === "`" || next === "$" || next === "\\" || (inDoubleQuotes && next === '"')) {
          inner += next;
          this.pos += 2;
          continue;
        }
      }
      inner += c;
      this.pos++;
    }
    const parser = new ShellParser(inner, this.depth + 1);
    const script = parser.parseList(new Set(), false);
    parser.skipSeparatorsAndNewlines();
    if (!parser.atEnd()) this.fail(`unexpected ${parser.describeHere()} inside backticks`, start);
    parser.finishHeredocs();
    return { kind: "cmdsubst", text: this.src.slice(start, this.pos), script, backtick: true };
  }

  /** Reads arithmetic up to `close` (`))` or `]`), collecting substitutions; the cursor ends after it. */
  private readArithmetic(close: string): { text: string; subs: Script[] } {
    const start = this.pos;
    const subs: Script[] = [];
    let parens = 0;
    let brackets = 0;
    for (;;) {
      if (this.atEnd()) this.fail(`arithmetic is missing "${close}"`);
      if (parens === 0 && brackets === 0 && this.startsWith(close)) {
        const text = this.src.slice(start, this.pos);
        this.pos += close.length;
        return { text, subs };
      }
      const c = this.ch();
      if (c === "(") parens++;
      else if (c === ")") {
        if (parens === 0) this.fail("unbalanced ) in arithmetic");
        parens--;
      } else if (c === "[") brackets++;
      else if (c === "]") brackets = Math.max(0, brackets - 1);
      if (c === "$" || c === "`") {
        const part = c === "`" ? this.readBackticks(false) : this.readDollar();
        if (part) {
          subs.push(...subsOf(part));
          continue;
        }
      } else if (c === '"') {
        this.pos++;
        for (const part of this.readDoubleQuoted()) subs.push(...subsOf(part));
        continue;
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) this.fail("a single quote is not closed");
        this.pos = end + 1;
        continue;
      } else if (c === "\\") {
        this.pos += 2;
        continue;
      } else if (c === "\n" && this.pending.length) {
        this.newline();
        continue;
      }
      this.pos++;
    }
  }
}

const NAME_OR_FN = /^[^ \t\n$`'"\\=]+$/;

function compound(
  type: CompoundType,
  bodies: Script[],
  words: Word[],
  arith: { text: string; subs: Script[] }[],
): Command & { redirs: Redirect[] } {
  return { kind: "compound", type, bodies, words, arith, redirs: [] };
}

function rawOf(part: WordPart): string {
  switch (part.kind) {
    case "lit":
      return part.value;
    case "tilde":
      return `~${part.user}`;
    default:
      return part.text;
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

/** `${x@P}` runs the value as a prompt string; a non-numeric array subscript is evaluated as arithmetic. */
function paramRisk(text: string): { risk?: string } {
  if (/@P\}$/.test(text)) return { risk: `${text} expands a prompt string, which can run commands` };
  if (
    /^\$\{![A-Za-z_][A-Za-z0-9_]*([:#%/^,@}]|$)/.test(text) &&
    !/^\$\{![A-Za-z_][A-Za-z0-9_]*[*@]\}$/.test(text)
  ) {
    return { risk: `${text} expands the variable named by another one, which can run commands` };
  }
  const subscript = /^\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]/.exec(text)?.[1];
  if (subscript !== undefined && !/^(\d+|@|\*)$/.test(subscript)) {
    return { risk: `the array subscript in ${text} is evaluated as arithmetic, which can run commands` };
  }
  return {};
}

/** Substitutions in an unquoted here-document body (only `$` and backticks are special there). */
function substitutionsIn(body: string, depth: number): Script[] {
  if (!/[$`]/.test(body)) return [];
  return new ShellParser(body, depth).readDoubleQuoted(true).flatMap(subsOf);
}

export { RESERVED as SHELL_RESERVED_WORDS };
