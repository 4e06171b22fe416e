// Reads bash with tree-sitter-bash (a maintained grammar, run as WebAssembly) and turns its syntax tree into
// the command tree of shell-ast.ts. Every node type is mapped explicitly; a node we do not know, an ERROR or
// MISSING node, or a shape where tree-sitter is known to read bash differently from bash (a carriage
// return taken as a blank, `coproc NAME {…}`, `$"…"`, backslashes in backticks, quotes inside `${…}`…) is a
// ShellSyntaxError: the analyser turns it into a `parse-error` flag and a person decides. Never a guess.
import { createRequire } from "node:module";
import type { Parser, Tree } from "web-tree-sitter";
import {
  ShellSyntaxError,
  subsOf,
  type Assignment,
  type Command,
  type CompoundType,
  type Pipeline,
  type Redirect,
  type Script,
  type Statement,
  type Word,
  type WordPart,
} from "./shell-ast.js";
import { copySyntaxTree, type SyntaxNode as Node } from "./shell-syntax-node.js";
import { decodeAnsiC, doubleQuotedLiteral, unquotedParts } from "./shell-word-text.js";

type CompoundCommand = Extract<Command, { kind: "compound" }>;
type FlatItem =
  { kind: "command"; node: Node; redirs: Node[] } | { kind: "op"; node: Node } | { kind: "not"; node: Node };

const MAX_NESTING = 64;
/** Between two tokens of a command only blanks, line continuations, newlines and comments may stand. */
const BLANK = /^(?:[ \t\n]|\\\n)*$/;
/** Words bash reserves at command position; tree-sitter reads some of them as command names. */
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
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "coproc",
  "time",
]);
const WORD_NODES = new Set([
  "word",
  "number",
  "string",
  "raw_string",
  "ansi_c_string",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "concatenation",
  "brace_expression",
  "extglob_pattern",
]);

/**
 * The grammar is immutable WebAssembly: loaded once per process, shared by every parse. The package
 * itself is imported on the first parse: a command given as argv (`policy explain -- git status`)
 * needs no parser, and loading web-tree-sitter costs about half a `node -e 0` (issue 12).
 */
let bashParser: Promise<Parser> | null = null;
function parser(): Promise<Parser> {
  bashParser ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
    const language = await Language.load(wasm);
    return new Parser().setLanguage(language);
  })();
  return bashParser;
}

/** Parses a bash script. Throws ShellSyntaxError for anything not read exactly. */
export async function parseBash(text: string): Promise<Script> {
  const p = await parser();
  // parse() is synchronous, so one parser serves every caller
  const tree: Tree | null = p.parse(text);
  if (!tree) throw new ShellSyntaxError("the shell parser gave no result", 0);
  try {
    const cursor = tree.walk();
    let root: Node;
    try {
      root = copySyntaxTree(cursor);
    } finally {
      cursor.delete();
    }
    return new TreeReader(text).program(root);
  } catch (error) {
    // a stack overflow on absurdly deep input is a refusal like any other
    if (error instanceof RangeError) throw new ShellSyntaxError("nested too deeply to analyse", 0);
    throw error;
  } finally {
    tree.delete();
  }
}

function kids(node: Node): Node[] {
  return node.children;
}

class TreeReader {
  private depth = 0;
  /** Redirects (by start offset) whose `{fd}` label tree-sitter read as the argument before them. */
  private readonly fdLabels = new Map<number, string>();
  /** Nodes inside a here-document node that are really the commands after it (heredocTails). */
  private readonly claimed = new Set<Node>();
  /** Line continuations (`\⏎`, by the backslash's offset) read as blanks between two tokens. */
  private readonly continuations = new Set<number>();
  /** Spans taken literally (single quotes, quoted here-documents, comments): a `\⏎` there is just text. */
  private readonly literalSpans: [number, number][] = [];
  /** Command ends followed by a lone `-` that tree-sitter dropped before a here-document (`python3 - <<EOF`). */
  private readonly danglingDashes = new Set<number>();

  constructor(private readonly src: string) {}

  private fail(message: string, node: Node): never {
    throw new ShellSyntaxError(message, node.startIndex);
  }

  private textOf(node: Node): string {
    return this.src.slice(node.startIndex, node.endIndex);
  }

  private unexpected(node: Node, where: string): never {
    if (node.isError || node.isMissing || node.hasError) this.fail(this.errorMessage(node), node);
    const shown = node.isNamed ? node.type : JSON.stringify(node.type);
    return this.fail(`${shown} ${where} is not analysed`, node);
  }

  private errorMessage(node: Node): string {
    const bad = this.firstError(node) ?? node;
    if (bad.isMissing) return `${JSON.stringify(bad.type)} is missing`;
    const near = this.src.slice(bad.startIndex, Math.min(bad.endIndex, bad.startIndex + 10));
    return near ? `unexpected ${JSON.stringify(near)}` : "the command is incomplete";
  }

  /** Every ERROR or MISSING node is refused, except tree-sitter-bash 0.25's reading of `<>` (fileRedirect). */
  private checkErrors(node: Node): void {
    if (!node.hasError && !node.isMissing) return;
    if (node.isError && this.isReadWriteOperator(node)) return;
    if (node.isError || node.isMissing) this.fail(this.errorMessage(node), node);
    for (const child of kids(node)) this.checkErrors(child);
  }

  /** `<` then an ERROR holding exactly `>` right after it, inside a file redirect: bash's `<>`. */
  private isReadWriteOperator(node: Node): boolean {
    const before = node.previousSibling;
    return (
      node.parent?.type === "file_redirect" &&
      before?.type === "<" &&
      before.endIndex === node.startIndex &&
      this.textOf(node) === ">" &&
      kids(node).length === 1 &&
      kids(node)[0]?.type === ">"
    );
  }

  private firstError(node: Node): Node | null {
    if (node.isError || node.isMissing) return node;
    if (!node.hasError) return null;
    for (const child of kids(node)) {
      const found = this.firstError(child);
      if (found) return found;
    }
    return null;
  }

  /**
   * The text between two sibling tokens must be blanks, newlines (`inline`: not even those), line
   * continuations or comments; `spaced` requires at least one real blank. A `#` starts a comment only after
   * a real blank: after a line continuation it continues the word (`a\⏎#;x` runs x), which tree-sitter
   * reads as a comment.
   */
  private checkGap(a: Node, b: Node, spaced = false, inline = false): void {
    const { src } = this;
    if (this.danglingDashes.has(a.endIndex) && b.type === "heredoc_redirect") return;
    let blank = false;
    for (let i = a.endIndex; i < b.startIndex; i++) {
      const c = src[i] as string;
      if (c === " " || c === "\t" || (c === "\n" && !inline)) blank = true;
      else if (c === "\\" && src[i + 1] === "\n") this.continuations.add(i++);
      else if (c === "#" && blank && /[ \t\n]/.test(src[i - 1] ?? "")) {
        const end = src.indexOf("\n", i);
        this.literalSpan(i, end === -1 ? src.length : end);
        if (end === -1 || end >= b.startIndex) break; // the comment runs up to the next token
        i = end - 1;
      } else {
        this.fail(`unexpected ${JSON.stringify(src.slice(i, Math.min(i + 10, b.startIndex)))}`, b);
      }
    }
    if (spaced && !blank) this.fail("two words run together where bash reads one", b);
  }

  private literalSpan(from: number, to: number): void {
    this.literalSpans.push([from, to]);
  }

  /**
   * Bash joins lines ending in a backslash before it reads anything (outside single quotes, quoted
   * here-documents and comments); tree-sitter reads the text as it stands. A `\⏎` is therefore accepted
   * only where the reader saw it as a blank between two tokens or inside literal text; anywhere else
   * (`"$\⏎(…)"`, `$\⏎{…}`, an unquoted here-document, inside a word) bash could read something else.
   */
  private checkContinuations(): void {
    const { src } = this;
    for (let at = src.indexOf("\\\n"); at !== -1; at = src.indexOf("\\\n", at + 1)) {
      if (this.continuations.has(at)) continue;
      if (this.literalSpans.some(([from, to]) => at >= from && at < to)) continue;
      throw new ShellSyntaxError(
        "a line continuation (\\ at the end of a line) inside a word is not analysed",
        at,
      );
    }
  }

  private checkGaps(nodes: Node[], inline = false): void {
    for (let i = 1; i < nodes.length; i++)
      this.checkGap(nodes[i - 1] as Node, nodes[i] as Node, false, inline);
  }

  private nested<T>(node: Node, read: () => T): T {
    if (++this.depth > MAX_NESTING) this.fail("nested too deeply to analyse", node);
    try {
      return read();
    } finally {
      this.depth--;
    }
  }

  // ---- statements ---------------------------------------------------------------------------------

  program(root: Node): Script {
    this.checkErrors(root);
    for (const comment of root.descendantsOfType("comment")) {
      const at = comment?.startIndex ?? 0;
      if (comment) this.literalSpan(comment.startIndex, comment.endIndex);
      // `#` starts a comment only after a real blank; after `\⏎` bash reads it as part of the word before
      const before = this.src.slice(Math.max(0, at - 2), at);
      if (at > 0 && !/(^|[^\\])\n$|[ \t]$/.test(before))
        this.fail("a # that does not follow a blank", comment as Node);
    }
    if (!BLANK.test(this.src.slice(0, root.startIndex)) || !BLANK.test(this.src.slice(root.endIndex))) {
      this.fail("unexpected text around the command", root);
    }
    this.literalSpan(0, root.startIndex); // blanks and continuations only (checked just above)
    this.literalSpan(root.endIndex, this.src.length);
    const script = this.statements(kids(root), root);
    this.checkContinuations();
    return script;
  }

  /** A run of statements with their separators (`;`, `&`, newlines); keywords are not expected here. */
  private statements(nodes: Node[], parent: Node): Script {
    return this.nested(parent, () => {
      this.checkGaps(nodes);
      const script: Statement[] = [];
      let last: Statement | null = null;
      let lastEnd = 0;
      for (const node of nodes) {
        if (node.type === "comment") continue;
        if (!node.isNamed) {
          if (node.type === ";" && last) {
            last = null;
            continue;
          }
          if (node.type === "&" && last) {
            last.background = true;
            last = null;
            continue;
          }
          this.unexpected(node, "here");
        }
        // two statements with no `;` or `&` between them must be on different lines
        if (last && !this.src.slice(lastEnd, node.startIndex).includes("\n")) {
          this.fail("two commands run together", node);
        }
        last = { pipelines: this.andOr(node), background: false, start: node.startIndex };
        lastEnd = node.endIndex;
        script.push(last);
      }
      return script;
    });
  }

  /**
   * `a && b | c`, as bash groups it: an and-or list of pipelines. tree-sitter-bash sometimes groups the same
   * tokens differently (`a && b 2>&1 | c` as a pipeline whose first part is the list `a && b 2>&1`), so the
   * tree is flattened into its commands and operators in source order and regrouped by bash's rules.
   */
  private andOr(node: Node): Pipeline[] {
    const items: FlatItem[] = [];
    this.flatten(node, items);
    const pipelines: Pipeline[] = [];
    let pipeline: Pipeline = { commands: [], negated: false, timed: false };
    let expectCommand = true;
    for (const item of items) {
      if (item.kind === "op") {
        if (expectCommand) this.unexpected(item.node, "here");
        expectCommand = true;
        if (item.node.type === "&&" || item.node.type === "||") {
          pipelines.push(pipeline);
          pipeline = { commands: [], negated: false, timed: false };
        }
      } else if (item.kind === "not") {
        if (!expectCommand || pipeline.commands.length > 0)
          this.unexpected(item.node, "(! inside a pipeline)");
        pipeline.negated = true;
      } else {
        if (!expectCommand) this.unexpected(item.node, "(two commands without an operator)");
        const command = this.command(item.node, pipeline);
        pipeline.commands.push(
          this.addRedirects(
            command,
            item.redirs.flatMap((r) => this.redirect(r)),
            item.node,
          ),
        );
        expectCommand = false;
      }
    }
    if (expectCommand) this.unexpected(node, "(a list missing a command)");
    pipelines.push(pipeline);
    return pipelines;
  }

  /** Commands and operators in source order. Iterative on the left spine: long `&&` chains nest deeply. */
  private flatten(node: Node, items: FlatItem[]): void {
    switch (node.type) {
      case "list":
      case "pipeline": {
        // left-nested lists: collect the right-hand parts while walking down, then emit in order
        const tails: Node[][] = [];
        let current: Node = node;
        while (current.type === node.type) {
          const children = kids(current).filter((c) => c.type !== "comment");
          this.checkGaps(children);
          const [left, ...rest] = children;
          if (!left || rest.length === 0) return this.unexpected(current, "(an empty list)");
          tails.unshift(rest);
          current = left;
        }
        this.flatten(current, items);
        for (const rest of tails) {
          for (const child of rest) {
            if (["&&", "||", "|", "|&"].includes(child.type)) items.push({ kind: "op", node: child });
            else this.flatten(child, items);
          }
        }
        return;
      }
      case "negated_command": {
        const inner = kids(node);
        if (inner.length !== 2 || inner[0]?.type !== "!") this.unexpected(node, "(a negation)");
        this.checkGaps(inner);
        items.push({ kind: "not", node: inner[0] as Node });
        this.flatten(inner[1] as Node, items);
        return;
      }
      case "redirected_statement": {
        const body = node.childForFieldName("body");
        if (body && ["list", "pipeline", "negated_command"].includes(body.type)) {
          this.flatten(body, items);
          // the redirects follow the last command in the source, and bash binds them to it
          const last = items.at(-1);
          if (last?.kind !== "command") return this.unexpected(node, "(redirects)");
          const redirs = this.redirectNodes(node, body);
          last.redirs.push(...redirs);
          this.heredocTails(redirs, items);
          return;
        }
        items.push({ kind: "command", node, redirs: [] });
        this.heredocTails(kids(node), items);
        return;
      }
      case "command":
        items.push({ kind: "command", node, redirs: [] });
        this.heredocTails(kids(node), items);
        return;
      default:
        items.push({ kind: "command", node, redirs: [] });
    }
  }

  /**
   * tree-sitter-bash puts what follows a here-document's delimiter on its line (`cat <<EOF | grep x && y`)
   * inside the here-document node. Those operators and commands come next in source order: they are
   * flattened after the command, and the here-document reader skips them (`claimed`).
   */
  private heredocTails(nodes: Node[], items: FlatItem[]): void {
    for (const heredoc of nodes) {
      if (heredoc.type !== "heredoc_redirect") continue;
      const children = kids(heredoc);
      let i = 2;
      while (children[i] && heredoc.fieldNameForChild(i) === "redirect") i++;
      for (; i < children.length; i++) {
        const child = children[i] as Node;
        if (child.type === "heredoc_body" || child.type === "heredoc_end") break;
        this.claimed.add(child);
        if (child.type === "pipeline" && (kids(child)[0]?.type === "|" || kids(child)[0]?.type === "|&")) {
          const [op, ...rest] = kids(child);
          this.checkGaps(kids(child));
          items.push({ kind: "op", node: op as Node });
          for (const part of rest) {
            if (["&&", "||", "|", "|&"].includes(part.type)) items.push({ kind: "op", node: part });
            else this.flatten(part, items);
          }
        } else if (
          (child.type === "&&" || child.type === "||") &&
          heredoc.fieldNameForChild(i) === "operator"
        ) {
          const right = children[i + 1];
          if (!right || heredoc.fieldNameForChild(i + 1) !== "right")
            this.unexpected(child, "after a here-document");
          this.claimed.add(right);
          items.push({ kind: "op", node: child });
          this.flatten(right, items);
          i++;
        } else {
          this.unexpected(child, "after a here-document");
        }
      }
    }
  }

  private command(node: Node, pipeline: Pipeline): Command {
    switch (node.type) {
      case "command":
        return this.simple(node, pipeline);
      case "variable_assignment":
        return { kind: "simple", assigns: [this.assignment(node)], words: [], redirs: [] };
      case "variable_assignments": {
        const children = kids(node);
        this.checkGaps(children);
        const assigns = children.map((c) =>
          c.type === "variable_assignment" ? this.assignment(c) : this.unexpected(c, "in assignments"),
        );
        return { kind: "simple", assigns, words: [], redirs: [] };
      }
      case "declaration_command":
      case "unset_command":
        return this.declaration(node);
      case "redirected_statement": {
        const body = node.childForFieldName("body");
        if (!body) return { kind: "simple", assigns: [], words: [], redirs: this.redirectsOf(node, body) };
        if (body.type === "list" || body.type === "pipeline") this.unexpected(node, "inside a pipeline");
        const command = this.command(body, pipeline); // first: it may hand a `{fd}` label to a redirect
        return this.addRedirects(command, this.redirectsOf(node, body), node);
      }
      case "subshell":
        return this.compound("subshell", [this.bodyBetween(node, "(", ")")]);
      case "compound_statement":
        return this.braceOrArith(node);
      case "if_statement":
        return this.compound("if", this.keywordBodies(node, ["if", "then", "elif", "else", "fi"]));
      case "while_statement":
        return this.loop(node);
      case "for_statement":
        return this.forIn(node);
      case "c_style_for_statement":
        return this.arithFor(node);
      case "case_statement":
        return this.caseStatement(node);
      case "test_command":
        return this.testCommand(node);
      case "function_definition":
        return this.functionDefinition(node);
      case "file_redirect":
        // `$(< file)`: a redirect alone, which bash reads as "the file's contents" (the read rule judges it)
        return { kind: "simple", assigns: [], words: [], redirs: this.redirect(node) };
      default:
        return this.unexpected(node, "as a command");
    }
  }

  private compound(type: CompoundType, bodies: Script[], words: Word[] = []): CompoundCommand {
    return { kind: "compound", type, bodies, words, arith: [], redirs: [] };
  }

  private addRedirects(command: Command, redirs: Redirect[], at: Node): Command {
    if (redirs.length === 0) return command;
    if (command.kind === "simple" || command.kind === "compound") {
      command.redirs.push(...redirs);
      return command;
    }
    // `f() {…} > x` redirects every call; `coproc … > x` the coprocess: the body carries them
    if (command.kind === "function" || command.kind === "coproc") {
      command.body = this.addRedirects(command.body, redirs, at);
      return command;
    }
    return this.unexpected(at, "(redirects)");
  }

  private redirectNodes(node: Node, body: Node | null): Node[] {
    const children = kids(node);
    this.checkGaps(children);
    return children.filter((child) => child !== body && child.type !== "comment");
  }

  private redirectsOf(node: Node, body: Node | null): Redirect[] {
    return this.redirectNodes(node, body).flatMap((child) => this.redirect(child));
  }

  private simple(node: Node, pipeline: Pipeline): Command {
    const children = kids(node);
    this.checkGaps(children, true); // a newline ends a simple command
    const assigns: Assignment[] = [];
    const words: Word[] = [];
    const wordNodes: Node[] = [];
    const redirs: Redirect[] = [];
    // assignments and words must stand apart; tree-sitter sometimes splits one bash word in two
    let lastWordish: Node | null = null;
    const apart = (child: Node) => {
      if (lastWordish) this.checkGap(lastWordish, child, true);
      lastWordish = child;
    };
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      const field = node.fieldNameForChild(i);
      if (child.type === "variable_assignment" && words.length === 0) {
        apart(child);
        assigns.push(this.assignment(child));
      } else if (field === "redirect" || child.type.endsWith("_redirect")) {
        this.takeFdLabel(words, wordNodes, child);
        redirs.push(...this.redirect(child));
      } else if (field === "name" && child.type === "command_name" && words.length === 0) {
        const inner = kids(child);
        if (inner.length !== 1) this.unexpected(child, "(a command name)");
        apart(child);
        words.push(this.word(inner[0] as Node));
        wordNodes.push(child);
      } else if (field === "argument" && WORD_NODES.has(child.type) && words.length > 0) {
        apart(child);
        words.push(this.word(child));
        wordNodes.push(child);
      } else if (child.type === "comment") {
        continue;
      } else {
        this.unexpected(child, "in a command");
      }
    }
    // `ls {fd}>x`: the redirect may sit outside the command node, in a redirected_statement
    const next = node.nextSibling;
    if (node.parent?.type === "redirected_statement" && next) this.takeFdLabel(words, wordNodes, next);
    // tree-sitter-bash drops a lone `-` argument right before a here-document (`python3 - <<EOF`)
    if (
      words.length > 0 &&
      next?.type === "heredoc_redirect" &&
      /^[ \t]+-[ \t]+$/.test(this.src.slice(node.endIndex, next.startIndex))
    ) {
      words.push(literalWord("-"));
      this.danglingDashes.add(node.endIndex);
    }
    const first = words[0];
    const firstNode = wordNodes[0];
    if (first && firstNode && RESERVED.has(first.raw)) {
      return this.keywordCommand(first.raw, words, wordNodes, assigns, redirs, pipeline, firstNode);
    }
    if (words.length === 0 && assigns.length === 0 && redirs.length === 0) this.unexpected(node, "(empty)");
    return { kind: "simple", assigns, words, redirs };
  }

  /**
   * `{fd}>x`: tree-sitter reads `{fd}` as an argument; bash reads a `{name}` word right before a redirect
   * operator as the descriptor the redirect allocates. The word is moved to the redirect.
   */
  private takeFdLabel(words: Word[], wordNodes: Node[], redirect: Node): void {
    const prev = wordNodes.at(-1);
    if (
      prev &&
      words.length > 1 &&
      prev.endIndex === redirect.startIndex &&
      /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(this.textOf(prev)) &&
      redirect.type === "file_redirect" &&
      !redirect.childForFieldName("descriptor")
    ) {
      words.pop();
      wordNodes.pop();
      this.fdLabels.set(redirect.startIndex, this.textOf(prev));
    }
  }

  /**
   * tree-sitter-bash reads the keywords `time` and `coproc` as command names. Their plain forms are
   * rebuilt (`time [-p] cmd …`, `coproc cmd …`); anything else, and any other reserved word at command
   * position, is refused.
   */
  private keywordCommand(
    keyword: string,
    words: Word[],
    wordNodes: Node[],
    assigns: Assignment[],
    redirs: Redirect[],
    pipeline: Pipeline,
    at: Node,
  ): Command {
    const atPipelineStart = pipeline.commands.length === 0;
    if (
      assigns.length > 0 ||
      (keyword !== "time" && keyword !== "coproc") ||
      (keyword === "time" && !atPipelineStart)
    ) {
      this.fail(`"${keyword}" is not analysed here`, at);
    }
    let rest = words.slice(1);
    let restNodes = wordNodes.slice(1);
    if (keyword === "time") {
      pipeline.timed = true;
      if (rest[0]?.raw === "-p") {
        rest = rest.slice(1);
        restNodes = restNodes.slice(1);
      }
    }
    const next = rest[0];
    if (!next || RESERVED.has(next.raw) || /^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=/.test(next.raw)) {
      this.fail(
        `"${keyword}" followed by ${next ? JSON.stringify(next.raw) : "nothing"} is not analysed`,
        restNodes[0] ?? at,
      );
    }
    const body: Command = { kind: "simple", assigns: [], words: rest, redirs };
    return keyword === "coproc" ? { kind: "coproc", body } : body;
  }

  private declaration(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children, true); // a newline ends a simple command
    const words: Word[] = [];
    const redirs: Redirect[] = [];
    let prev: Node | null = null;
    for (const child of children) {
      if (child.type === "comment") continue;
      if (child.type.endsWith("_redirect")) {
        redirs.push(...this.redirect(child));
        continue;
      }
      if (prev) this.checkGap(prev, child, true);
      prev = child;
      if (words.length === 0) {
        if (child.isNamed) this.unexpected(child, "(a declaration keyword)");
        words.push(literalWord(child.type));
      } else if (child.type === "variable_assignment") {
        const assignment = this.assignment(child);
        // as in bash's own reading: `a=` then, for an array value, its elements as words
        const [value, ...elements] = assignment.values;
        words.push(value as Word, ...elements);
      } else if (child.type === "variable_name") {
        words.push(literalWord(this.textOf(child)));
      } else if (WORD_NODES.has(child.type)) {
        words.push(this.word(child));
      } else {
        this.unexpected(child, "in a declaration");
      }
    }
    return { kind: "simple", assigns: [], words, redirs };
  }

  /**
   * `name=value`, `name+=value`, `name[i]=value`, `name=(a b)`. As with bash's reading, the first value is
   * the whole word (`name=` included), so substitutions in a subscript are found too.
   */
  private assignment(node: Node): Assignment {
    const children = kids(node);
    const raw = this.textOf(node);
    const nameNode = node.childForFieldName("name");
    if (!nameNode || (children[0] !== undefined && children[0].startIndex !== nameNode.startIndex)) {
      this.unexpected(node, "(an assignment)");
    }
    let name: string;
    let subscript: string | undefined;
    const head: WordPart[] = [];
    if (nameNode.type === "variable_name") {
      name = this.textOf(nameNode);
      head.push({ kind: "lit", value: name, quoted: false });
    } else if (nameNode.type === "subscript") {
      const base = nameNode.childForFieldName("name");
      const index = nameNode.childForFieldName("index");
      if (!base || base.type !== "variable_name" || !index) this.unexpected(nameNode, "(a subscript)");
      name = this.textOf(base);
      subscript = this.textOf(index);
      head.push({
        kind: "param",
        text: this.textOf(nameNode),
        subs: this.scriptsWithin(index),
        quoted: false,
      });
    } else {
      return this.unexpected(nameNode, "as an assignment name");
    }
    const op = children[1];
    if (!op || (op.type !== "=" && op.type !== "+=") || op.startIndex !== nameNode.endIndex) {
      this.unexpected(node, "(an assignment)");
    }
    head.push({ kind: "lit", value: op.type, quoted: false });
    const value = children[2];
    if (children.length > 3) this.unexpected(node, "(an assignment)");
    const shape = subscript !== undefined ? { subscript } : {};
    if (!value) return { name, values: [{ raw, parts: head }], raw, ...shape };
    if (value.startIndex !== op.endIndex) this.unexpected(value, "after =");
    if (value.type === "array") {
      const elements = kids(value);
      if (elements[0]?.type !== "(" || elements.at(-1)?.type !== ")") this.unexpected(value, "(an array)");
      this.checkGaps(elements);
      const words: Word[] = [{ raw: this.src.slice(node.startIndex, value.startIndex), parts: head }];
      let prev: Node | null = null;
      for (const element of elements.slice(1, -1)) {
        if (element.type === "comment") continue;
        if (!WORD_NODES.has(element.type)) this.unexpected(element, "in an array");
        if (prev) this.checkGap(prev, element, true);
        prev = element;
        words.push(this.word(element));
      }
      return { name, values: words, raw, array: true, ...shape };
    }
    if (!WORD_NODES.has(value.type)) this.unexpected(value, "as a value");
    return { name, values: [{ raw, parts: [...head, ...this.word(value, false).parts] }], raw, ...shape };
  }

  private keywordBodies(node: Node, keywords: string[]): Script[] {
    const bodies: Script[] = [];
    let run: Node[] = [];
    const flush = () => {
      bodies.push(this.statements(run, node));
      run = [];
    };
    const children = kids(node);
    this.checkGaps(children);
    for (const child of children) {
      if (!child.isNamed && keywords.includes(child.type)) {
        if (run.length || bodies.length || child.type !== keywords[0]) flush();
        continue;
      }
      if (child.type === "elif_clause" || child.type === "else_clause") {
        if (run.length) flush();
        bodies.push(...this.keywordBodies(child, ["elif", "then", "else"]).filter((b) => b.length > 0));
        continue;
      }
      run.push(child);
    }
    if (run.length) flush();
    return bodies;
  }

  private bodyBetween(node: Node, open: string, close: string): Script {
    const children = kids(node);
    if (children[0]?.type !== open || children.at(-1)?.type !== close)
      this.unexpected(node, `(${open} … ${close})`);
    this.checkGaps(children);
    return this.statements(children.slice(1, -1), node);
  }

  private braceOrArith(node: Node): Command {
    const first = kids(node)[0];
    if (first?.type === "{") return this.compound("group", [this.bodyBetween(node, "{", "}")]);
    if (first?.type === "((") {
      const children = kids(node);
      if (children.at(-1)?.type !== "))") this.unexpected(node, "(arithmetic)");
      const command = this.compound("arith", []);
      command.arith.push(this.arithmetic(node, first, children.at(-1) as Node));
      return command;
    }
    return this.unexpected(node, "(a compound command)");
  }

  private arithmetic(node: Node, open: Node, close: Node): { text: string; subs: Script[] } {
    return { text: this.src.slice(open.endIndex, close.startIndex), subs: this.scriptsWithin(node) };
  }

  private doGroup(node: Node | null, at: Node): Script {
    if (!node) return this.unexpected(at, "(a loop without a body)");
    if (node.type === "do_group") return this.bodyBetween(node, "do", "done");
    if (node.type === "compound_statement") return this.bodyBetween(node, "{", "}");
    return this.unexpected(node, "as a loop body");
  }

  private loop(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    const keyword = children[0]?.type;
    if (keyword !== "while" && keyword !== "until") return this.unexpected(node, "(a loop)");
    const bodyNode = node.childForFieldName("body");
    if (!bodyNode || (children.at(-1) !== undefined && children.at(-1)?.startIndex !== bodyNode.startIndex)) {
      this.unexpected(node, "(a loop)");
    }
    const condition = this.statements(children.slice(1, -1), node);
    return this.compound(keyword, [condition, this.doGroup(bodyNode, node)]);
  }

  private forIn(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    const keyword = children[0]?.type;
    if (keyword !== "for" && keyword !== "select") return this.unexpected(node, "(a for loop)");
    const words: Word[] = [];
    let bodyNode: Node | null = null;
    let prev: Node | null = null;
    let variable: string | undefined;
    for (let i = 1; i < children.length; i++) {
      const child = children[i] as Node;
      const field = node.fieldNameForChild(i);
      if (field === "variable" && child.type === "variable_name" && i === 1) {
        variable = this.textOf(child);
        continue;
      }
      if (child.type === "in" || child.type === ";" || child.type === "comment") continue;
      if (field === "value" && WORD_NODES.has(child.type)) {
        if (prev) this.checkGap(prev, child, true, true); // a newline ends the list
        prev = child;
        words.push(this.word(child));
        continue;
      }
      if (field === "body" && i === children.length - 1) {
        bodyNode = child;
        continue;
      }
      this.unexpected(child, `in "${keyword}"`);
    }
    const loop = this.compound(keyword, [this.doGroup(bodyNode, node)], words);
    if (variable !== undefined) loop.variable = variable;
    return loop;
  }

  private arithFor(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    const open = children.find((c) => c.type === "((");
    const close = children.find((c) => c.type === "))");
    const bodyNode = node.childForFieldName("body");
    if (
      children[0]?.type !== "for" ||
      !open ||
      !close ||
      (children.at(-1) !== bodyNode && children.at(-1)?.startIndex !== bodyNode?.startIndex)
    ) {
      this.unexpected(node, "(a for loop)");
    }
    const command = this.compound("arith-for", [this.doGroup(bodyNode, node)]);
    const subs: Script[] = [];
    for (const child of children) {
      if (child.startIndex >= open.endIndex && child.endIndex <= close.startIndex)
        subs.push(...this.scriptsWithin(child));
    }
    command.arith.push({ text: this.src.slice(open.endIndex, close.startIndex), subs });
    return command;
  }

  private caseStatement(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    if (children[0]?.type !== "case" || children.at(-1)?.type !== "esac")
      return this.unexpected(node, "(a case)");
    const words: Word[] = [];
    const bodies: Script[] = [];
    let sawIn = false;
    for (let i = 1; i < children.length - 1; i++) {
      const child = children[i] as Node;
      const field = node.fieldNameForChild(i);
      if (field === "value" && i === 1 && WORD_NODES.has(child.type)) words.push(this.word(child));
      else if (child.type === "in" && words.length === 1) sawIn = true;
      else if (child.type === "case_item" && sawIn) this.caseItem(child, words, bodies);
      else if (child.type !== "comment") this.unexpected(child, 'in "case"');
    }
    if (!sawIn) this.unexpected(node, "(a case)");
    return this.compound("case", bodies, words);
  }

  private caseItem(node: Node, words: Word[], bodies: Script[]): void {
    const children = kids(node);
    this.checkGaps(children);
    const close = children.findIndex((c) => c.type === ")");
    if (close < 0) this.unexpected(node, "(a case pattern)");
    for (let i = 0; i < close; i++) {
      const child = children[i] as Node;
      if (child.type === "|" || (child.type === "(" && i === 0)) continue;
      if (node.fieldNameForChild(i) === "value" && WORD_NODES.has(child.type)) words.push(this.word(child));
      else this.unexpected(child, "in a case pattern");
    }
    let end = children.length;
    const last = children.at(-1);
    if (last && [";;", ";&", ";;&"].includes(last.type)) end--;
    bodies.push(this.statements(children.slice(close + 1, end), node));
  }

  private testCommand(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    if (children[0]?.type === "[" && children.at(-1)?.type === "]") return this.bracketTest(node, children);
    if (children[0]?.type !== "[[" || children.at(-1)?.type !== "]]")
      return this.unexpected(node, "(a test)");
    const words: Word[] = [];
    for (const child of children.slice(1, -1)) this.testOperand(child, words);
    return this.compound("test", [], words);
  }

  /**
   * `[ … ]` is the ordinary command `[`: every token tree-sitter found is one of its words, in order, and
   * each must stand apart. `&&`, `||`, `<`, `>` and parentheses mean something else to bash there: refused.
   */
  private bracketTest(node: Node, children: Node[]): Command {
    const leaves: Node[] = [];
    const collect = (n: Node) => {
      if (
        WORD_NODES.has(n.type) ||
        n.type === "test_operator" ||
        (!n.isNamed && ["!", "=", "==", "!="].includes(n.type))
      ) {
        leaves.push(n);
      } else if (n.type === "binary_expression" || n.type === "unary_expression") {
        for (const child of kids(n)) collect(child);
      } else {
        this.unexpected(n, "in [ ]");
      }
    };
    for (const child of children.slice(1, -1)) collect(child);
    const all = [children[0] as Node, ...leaves, children.at(-1) as Node];
    for (let i = 1; i < all.length; i++) this.checkGap(all[i - 1] as Node, all[i] as Node, true, true);
    const words = all.map((leaf) =>
      WORD_NODES.has(leaf.type) ? this.word(leaf) : literalWord(this.textOf(leaf)),
    );
    return { kind: "simple", assigns: [], words, redirs: [] };
  }

  /** Operands and operators of `[[ ]]` as words (so `-eq` & co. can be seen); `&&`, `!`, `(`… are syntax. */
  private testOperand(node: Node, words: Word[]): void {
    if (WORD_NODES.has(node.type)) {
      words.push(this.word(node));
      return;
    }
    switch (node.type) {
      case "binary_expression":
      case "unary_expression":
      case "parenthesized_expression": {
        const children = kids(node);
        this.checkGaps(children);
        for (const child of children) this.testOperand(child, words);
        return;
      }
      case "test_operator":
        words.push(literalWord(this.textOf(node)));
        return;
      case "regex": {
        const text = this.textOf(node);
        // tree-sitter keeps a regex as one token: expansions or quotes in it would go unseen
        if (/[`'"\\]|\$(?![)|]|$)/.test(text))
          this.fail("a [[ =~ ]] pattern with expansions is not analysed", node);
        words.push({ raw: text, parts: [{ kind: "lit", value: text, quoted: true }] });
        return;
      }
      case "&&":
      case "||":
      case "!":
      case "(":
      case ")":
      case "<":
      case ">":
        return;
      case "==":
      case "=":
      case "!=":
      case "=~":
        words.push(literalWord(node.type));
        return;
      default:
        this.unexpected(node, "in [[ ]]");
    }
  }

  private functionDefinition(node: Node): Command {
    const children = kids(node);
    this.checkGaps(children);
    const nameNode = node.childForFieldName("name");
    const bodyNode = node.childForFieldName("body");
    if (!nameNode || !bodyNode) return this.unexpected(node, "(a function)");
    const redirs: Redirect[] = [];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      const field = node.fieldNameForChild(i);
      if (child.startIndex === nameNode.startIndex && child.type === nameNode.type) continue;
      if (child.startIndex === bodyNode.startIndex && child.type === bodyNode.type) continue;
      if (["function", "(", ")", "comment"].includes(child.type)) continue;
      if (field === "redirect") redirs.push(...this.redirect(child));
      else this.unexpected(child, "in a function definition");
    }
    const name = this.textOf(nameNode);
    if (nameNode.type !== "word" || /[\s$`'"\\=]/.test(name)) this.unexpected(nameNode, "as a function name");
    const body = this.addRedirects(
      this.command(bodyNode, { commands: [], negated: false, timed: false }),
      redirs,
      node,
    );
    return { kind: "function", name, body };
  }

  // ---- redirects ----------------------------------------------------------------------------------

  private redirect(node: Node): Redirect[] {
    const children = kids(node);
    if (node.type === "file_redirect") return [this.fileRedirect(node, children)];
    if (node.type === "herestring_redirect") {
      const [op, target, ...rest] = children;
      if (op?.type !== "<<<" || !target || rest.length || !WORD_NODES.has(target.type))
        this.unexpected(node, "(<<<)");
      this.checkGap(op, target, false, true);
      return [{ op: "<<<", fd: null, target: this.word(target) }];
    }
    if (node.type === "heredoc_redirect") return this.heredoc(node, children);
    return this.unexpected(node, "as a redirect");
  }

  private fileRedirect(node: Node, children: Node[]): Redirect {
    let i = 0;
    let fd: string | null = this.fdLabels.get(node.startIndex) ?? null;
    const first = children[0];
    if (first && node.fieldNameForChild(0) === "descriptor") {
      if (first.type !== "file_descriptor") this.unexpected(first, "as a descriptor");
      fd = this.textOf(first);
      i = 1;
    }
    const opNode = children[i];
    if (!opNode || opNode.isNamed || (i === 1 && opNode.startIndex !== first?.endIndex)) {
      return this.unexpected(node, "(a redirect)");
    }
    let op = opNode.type;
    let next = i + 1;
    // tree-sitter-bash 0.25 has no `<>`: it reads `<` then an ERROR holding exactly `>`
    const after = children[next];
    if (op === "<" && after?.isError && this.isReadWriteOperator(after)) {
      op = "<>";
      next++;
    }
    const targets = children.slice(next);
    const known = [">", ">>", ">|", "&>", "&>>", "<", "<>", ">&", "<&", ">&-", "<&-"];
    if (!known.includes(op)) this.unexpected(opNode, "as a redirect");
    if (op === ">&-" || op === "<&-") {
      if (targets.length) this.unexpected(node, "(a descriptor close)");
      return { op: op.slice(0, 2), fd, target: literalWord("-") };
    }
    const target = targets[0];
    if (targets.length !== 1 || !target || !WORD_NODES.has(target.type))
      this.unexpected(node, "(a redirect target)");
    this.checkGap(children[next - 1] as Node, target, false, true);
    return { op, fd, target: this.word(target) };
  }

  /** A here-document, and the redirects written after it on its line (`cat <<EOF > out`). */
  private heredoc(node: Node, children: Node[]): Redirect[] {
    const [opNode, start, ...rest] = children;
    if (!opNode || (opNode.type !== "<<" && opNode.type !== "<<-") || start?.type !== "heredoc_start") {
      return this.unexpected(node, "(a here-document)");
    }
    this.checkGap(opNode, start, false, true);
    const sameLine: Redirect[] = [];
    let lineEnd: Node = start;
    let i = 0;
    for (; i < rest.length; i++) {
      const child = rest[i] as Node;
      if (node.fieldNameForChild(i + 2) !== "redirect") break;
      if (child.type !== "file_redirect" && child.type !== "herestring_redirect") break;
      this.checkGap(lineEnd, child, true, true);
      sameLine.push(...this.redirect(child));
      lineEnd = child;
    }
    // operators and commands after the delimiter were taken as the next items of the list (heredocTails)
    for (; rest[i] && this.claimed.has(rest[i] as Node); i++) {
      this.checkGap(lineEnd, rest[i] as Node, false, true);
      lineEnd = rest[i] as Node;
    }
    const tail = rest.slice(i);
    const [bodyNode, end, ...extra] = tail.length === 1 ? [null, ...tail] : tail;
    if (extra.length || end?.type !== "heredoc_end" || (bodyNode && bodyNode.type !== "heredoc_body")) {
      this.fail("a here-document followed by more commands on its line is not analysed", node);
    }
    const bodyStart = this.src.indexOf("\n", lineEnd.endIndex) + 1;
    if (
      bodyStart === 0 ||
      !/^[ \t]*\n$/.test(this.src.slice(lineEnd.endIndex, bodyStart)) ||
      (bodyNode ?? end).startIndex < bodyStart
    ) {
      this.fail("a here-document followed by more text on its line is not analysed", node);
    }
    const delimiterRaw = this.textOf(start);
    const quoted = /['"\\]/.test(delimiterRaw);
    const delimiter = quoted ? delimiterRaw.replace(/\\(.)/g, "$1").replace(/['"]/g, "") : delimiterRaw;
    if (this.textOf(end) !== delimiter) this.fail("the here-document's end line was not recognised", end);
    const body = this.src.slice(bodyStart, end.startIndex);
    const subs: Script[] = [];
    const parts: WordPart[] = [];
    if (quoted) this.literalSpan(bodyStart, end.startIndex);
    if (!quoted && bodyNode) {
      for (const child of kids(bodyNode)) {
        if (child.type === "heredoc_content") continue;
        if (!WORD_NODES.has(child.type) || child.type === "word")
          this.unexpected(child, "in a here-document");
        for (const part of this.word(child).parts) {
          subs.push(...subsOf(part));
          parts.push(part.kind === "param" || part.kind === "cmdsubst" ? { ...part, quoted: true } : part);
        }
      }
      // what tree-sitter took as plain content must hold no expansion it missed
      this.checkHeredocContent(bodyNode);
    }
    const target: Word = { raw: delimiterRaw, parts: [{ kind: "lit", value: delimiter, quoted }] };
    return [{ op: opNode.type, fd: null, target, heredoc: { body, quoted, subs, parts } }, ...sameLine];
  }

  private checkHeredocContent(bodyNode: Node): void {
    let at = bodyNode.startIndex;
    const check = (text: string, offset: number) => {
      if (/`|\$[({[A-Za-z0-9_@*#?$!-]/.test(text.replace(/\\[\\$`]/g, ""))) {
        throw new ShellSyntaxError("an expansion in a here-document was not recognised", offset);
      }
    };
    for (const child of kids(bodyNode)) {
      check(this.src.slice(at, child.startIndex), at);
      if (child.type === "heredoc_content") check(this.textOf(child), child.startIndex);
      at = child.endIndex;
    }
    check(this.src.slice(at, bodyNode.endIndex), at);
  }

  // ---- words --------------------------------------------------------------------------------------

  /** One shell word. `wordStart`: the node begins the word (a leading `~` is a tilde there). */
  private word(node: Node, wordStart = true): Word {
    return this.nested(node, () => ({
      raw: this.textOf(node),
      parts: this.wordParts(node, wordStart, node),
    }));
  }

  private wordParts(node: Node, wordStart: boolean, whole: Node): WordPart[] {
    const text = this.textOf(node);
    switch (node.type) {
      case "word":
      case "number":
        return unquotedParts(
          text,
          node.startIndex,
          wordStart,
          this.src.slice(node.startIndex, whole.endIndex),
        );
      case "raw_string":
        this.literalSpan(node.startIndex, node.endIndex);
        return [{ kind: "lit", value: text.slice(1, -1), quoted: true }];
      case "ansi_c_string": {
        const decoded = decodeAnsiC(text.slice(2, -1));
        return [
          decoded.ok
            ? { kind: "lit", value: decoded.value, quoted: true }
            : { kind: "opaque", text, why: `${text} ${decoded.why}` },
        ];
      }
      case "string":
        return this.doubleQuoted(node);
      case "simple_expansion":
        if (kids(node).length !== 2 || kids(node)[0]?.type !== "$") this.unexpected(node, "(a $ expansion)");
        return [{ kind: "param", text, subs: [], quoted: false }];
      case "expansion":
        return [this.expansion(node)];
      case "command_substitution":
        return [this.commandSubstitution(node)];
      case "process_substitution": {
        const children = kids(node);
        const open = children[0]?.type;
        if (open !== "<(" && open !== ">(") this.unexpected(node, "(a process substitution)");
        return [{ kind: "procsubst", text, script: this.bodyBetween(node, open, ")") }];
      }
      case "arithmetic_expansion": {
        const children = kids(node);
        const open = children[0];
        const close = children.at(-1);
        if (
          !open ||
          !close ||
          !((open.type === "$((" && close.type === "))") || (open.type === "$[" && close.type === "]"))
        ) {
          this.unexpected(node, "(arithmetic)");
        }
        return [{ kind: "arith", text, subs: this.scriptsWithin(node) }];
      }
      case "concatenation": {
        const parts: WordPart[] = [];
        const children = kids(node);
        children.forEach((child, i) => {
          const prev = children[i - 1];
          if (prev && prev.endIndex !== child.startIndex) this.unexpected(child, "(a gap inside a word)");
          if (child.type === "$") {
            // a lone `$` is literal at the end of a word; `$"…"` is a translated string tree-sitter splits
            if (i !== children.length - 1)
              this.fail('"$" followed by more of the word is not analysed', child);
            parts.push({ kind: "lit", value: "$", quoted: false });
            return;
          }
          if (!WORD_NODES.has(child.type)) this.unexpected(child, "in a word");
          parts.push(...this.wordParts(child, wordStart && i === 0, whole));
        });
        return parts;
      }
      case "brace_expression":
        if (/[$`'"\\]/.test(text)) this.fail("a brace expansion with expansions is not analysed", node);
        return [{ kind: "brace", text }];
      case "extglob_pattern":
        if (/[$`'"\\]/.test(text)) this.fail("a pattern with expansions is not analysed", node);
        return [{ kind: "opaque", text, why: `${text} is an extended pattern, which is not analysed` }];
      default:
        return this.unexpected(node, "as a word");
    }
  }

  private doubleQuoted(node: Node): WordPart[] {
    const children = kids(node);
    if (children[0]?.type !== '"' || children.at(-1)?.type !== '"' || children.length < 2) {
      this.unexpected(node, "(a double-quoted string)");
    }
    const parts: WordPart[] = [];
    let at = (children[0] as Node).endIndex;
    const literal = (from: number, to: number) => {
      if (to > from) {
        const value = doubleQuotedLiteral(this.src.slice(from, to), from);
        const prev = parts.at(-1);
        if (prev?.kind === "lit") prev.value += value;
        else parts.push({ kind: "lit", value, quoted: true });
      }
    };
    for (const child of children.slice(1, -1)) {
      if (child.type === "string_content") {
        literal(at, child.endIndex);
      } else if (child.type === "$") {
        literal(at, child.startIndex);
        parts.push({ kind: "lit", value: "$", quoted: true });
      } else if (
        ["simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"].includes(child.type)
      ) {
        literal(at, child.startIndex);
        for (const part of this.wordParts(child, false, child)) {
          parts.push(part.kind === "param" || part.kind === "cmdsubst" ? { ...part, quoted: true } : part);
        }
      } else {
        this.unexpected(child, "inside double quotes");
      }
      at = child.endIndex;
    }
    literal(at, (children.at(-1) as Node).startIndex);
    if (parts.length === 0) parts.push({ kind: "lit", value: "", quoted: true });
    return parts;
  }

  private expansion(node: Node): WordPart {
    const text = this.textOf(node);
    const children = kids(node);
    if (children[0]?.type !== "${" || children.at(-1)?.type !== "}")
      this.unexpected(node, "(a ${…} expansion)");
    const inner = text.slice(2, -1);
    // bash's quoting inside ${…} depends on the surrounding double quotes, which tree-sitter does not model
    if (/['"]/.test(inner) && /[$`]/.test(inner))
      this.fail("quotes and substitutions inside ${…} are not analysed", node);
    if (/^\s/.test(inner)) this.fail("${ …} is not analysed", node);
    return { kind: "param", text, subs: this.scriptsWithin(node), quoted: false };
  }

  private commandSubstitution(node: Node): WordPart {
    const text = this.textOf(node);
    const open = kids(node)[0]?.type;
    if (open === "`") {
      // bash removes backslashes inside backticks before parsing them; tree-sitter does not
      if (text.includes("\\")) this.fail("backslashes inside backticks are not analysed", node);
      return {
        kind: "cmdsubst",
        text,
        script: this.bodyBetween(node, "`", "`"),
        backtick: true,
        quoted: false,
      };
    }
    if (open !== "$(") return this.unexpected(node, "(a command substitution)");
    return {
      kind: "cmdsubst",
      text,
      script: this.bodyBetween(node, "$(", ")"),
      backtick: false,
      quoted: false,
    };
  }

  /** Every script nested anywhere below `node` (arithmetic, subscripts, `${…}` operands). */
  private scriptsWithin(node: Node): Script[] {
    const scripts: Script[] = [];
    const visit = (n: Node) => {
      if (n.isError || n.isMissing) this.unexpected(n, "");
      if (n.type === "command_substitution" || n.type === "process_substitution") {
        for (const part of this.wordParts(n, false, n)) scripts.push(...subsOf(part));
        return;
      }
      if (n.type === "word") {
        // tree-sitter leaves backticks and the like inside `${…}` operands as plain word text: refuse them
        unquotedParts(this.textOf(n), n.startIndex, false, this.textOf(n));
        return;
      }
      if (n.type === "string" || n.type === "raw_string" || n.type === "ansi_c_string") {
        if (n.type === "string") for (const part of this.doubleQuoted(n)) scripts.push(...subsOf(part));
        return;
      }
      for (const child of kids(n)) visit(child);
    };
    for (const child of kids(node)) visit(child);
    return scripts;
  }
}

function literalWord(value: string): Word {
  return { raw: value, parts: [{ kind: "lit", value, quoted: false }] };
}
