// Walks a parsed command (argv, POSIX shell string, or a simple Windows command line) and collects the
// segments that would run and the flags that need a person, on a positive model: every word must be
// understood (word-model.ts), every assignment harmless (variables.ts), and what a command does with its
// arguments is read from the tool table (tool-table.ts). Resolution happens afterwards (analyze.ts).
import path from "node:path";
import { commandBaseName, inlineCodeOf, SHELL_ONLY_BUILTINS, type Arg } from "./command-rules.js";
import { subsOf, type Command, type Redirect, type Script, type Word, type WordPart } from "./shell-ast.js";
import type { ScriptCache } from "./io/shell-script.js";
import { readTool, toolRole } from "./tool-table.js";
import type { Dialect, FolderMove, ToolReading } from "./tool-readings.js";
import type { CommandInput, Flag, FlagKind } from "./types.js";
import { judgeVariable } from "./variables.js";
import { splitWindowsCommand } from "./windows-command.js";
import { partProblem, plainArithmetic, understandWord } from "./word-model.js";

/** `sh -c` scripts nested deeper than this are not analysed (flag `too-deep`). */
export const MAX_SHELL_DEPTH = 4;

export interface RawSegment {
  args: Arg[];
  executable: string;
  context: string;
  wrapper?: boolean;
  inlineCode?: boolean;
  /** Why this segment cannot be resolved at all (dynamic name, shell builtin). */
  unresolvable?: string;
  /** A builtin that runs nothing: covered without an entry (why). */
  builtin?: string;
  /** PATH a wrapper set for it (`env PATH=… cmd`, `env -i cmd`, `command -p cmd`). */
  pathOverride?: string;
  /** Folder a wrapper moved to before starting it (`env -C dir cmd`). */
  chdir?: string;
  /** A `cd` in its shell: the folder it runs in is known only at run time. */
  cwdUnknown?: boolean;
  /** The moves of the working folder in its shells (outer first), for the read rule (file-reads.ts). */
  folderMoves?: FolderMove[];
  /** The segment whose output it reads on standard input (the command before it in a pipeline). */
  stdinFrom?: number;
}

/** A file the shell itself opens for a command: `< file` reads it, `> file` writes it. */
export interface RawRedirect {
  target: Arg;
  access: "read" | "write";
  context: string;
  /** A `cd` in its shell: a relative name is taken from a folder known only at run time. */
  cwdUnknown?: boolean;
  folderMoves?: FolderMove[];
}

export interface Collected {
  ok: boolean;
  segments: RawSegment[];
  flags: Flag[];
  /** Files the shell opens by redirects (here-documents and here-strings open none). */
  redirects: RawRedirect[];
  /** Every shell text analysed (the command and its `sh -c` scripts): a variable named in one may be set. */
  texts: string[];
}

interface Where {
  context: string;
  /** `sh -c` nesting depth. */
  depth: number;
  /** Run by a POSIX shell (builtins apply), rather than exec'd directly. */
  shell: boolean;
  /** Which shell reads the text. */
  dialect: Dialect;
  /** Standard input, when the command line itself writes it out (a here-document or here-string). */
  stdin?: string | null;
  /** The segment of the command before it in a pipeline, whose output is its standard input. */
  stdinFrom?: number;
  pathOverride?: string;
  chdir?: string;
}

const SAFE_WRITE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);
const READ_OPS = new Set(["<", "<<", "<<-", "<<<"]);
const TEST_ARITHMETIC_OPS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Builtins that run text as commands or change how names resolve: never covered, and flagged. */
const RISKY_BUILTINS: Record<string, { kind: FlagKind; detail: string }> = {
  eval: { kind: "eval", detail: "eval runs a string as shell commands" },
  alias: { kind: "eval", detail: "alias makes a name run other commands" },
  hash: { kind: "dynamic-command", detail: "hash can make a name run another file" },
  enable: { kind: "dynamic-command", detail: "enable can load a builtin from a library" },
  let: { kind: "expansion", detail: "let evaluates arithmetic, which can run commands hidden in variables" },
  mapfile: { kind: "dynamic-command", detail: "mapfile can run a callback for the lines it reads" },
  readarray: { kind: "dynamic-command", detail: "readarray can run a callback for the lines it reads" },
  compgen: { kind: "dynamic-command", detail: "compgen can run a command or function" },
  complete: { kind: "dynamic-command", detail: "complete can register a command to run" },
  bind: { kind: "dynamic-command", detail: "bind can make keys run commands" },
  fc: { kind: "dynamic-command", detail: "fc runs an editor and commands from the history" },
  builtin: { kind: "dynamic-command", detail: "builtin runs a builtin that is not analysed here" },
};

export async function collectAnalysis(
  input: CommandInput,
  options: { platform: NodeJS.Platform; scripts: ScriptCache; dialect?: Dialect },
): Promise<Collected> {
  const walker = new Walker(options.platform, options.scripts);
  const top: Where = { context: "top", depth: 0, shell: false, dialect: options.dialect ?? "bash" };
  if (input.argv !== undefined) {
    if (input.argv.length === 0 || input.argv[0] === "") walker.parseFailed("the command is empty");
    else
      await walker.argv(
        input.argv.map((value) => ({ value, literal: true })),
        top,
      );
  } else if (typeof input.command === "string") {
    const shell = input.shell ?? (options.platform === "win32" ? "cmd" : "posix");
    if (shell === "posix") await walker.text(input.command, { ...top, shell: true });
    else await walker.windows(input.command, shell, top);
  } else {
    walker.parseFailed("neither argv nor a command string was given");
  }
  return {
    ok: walker.ok,
    segments: walker.segments,
    flags: walker.flags,
    redirects: walker.redirects,
    texts: walker.texts,
  };
}

/** A word as an argument: its value when it is literal, else its source text as a placeholder. */
export function wordArg(word: Word): Arg {
  const meaning = understandWord(word);
  if (meaning.kind === "literal") return { value: meaning.value, literal: true, word };
  const first = word.parts[0];
  const safeStart =
    (first?.kind === "lit" && first.value !== "" && !first.value.startsWith("-")) ||
    (first?.kind === "tilde" && first.user === "");
  return {
    value: word.raw,
    literal: false,
    splits: meaning.kind === "unknown" || meaning.splits,
    mayBeOption: meaning.kind === "unknown" || meaning.splits || !safeStart,
    word,
  };
}

function within(where: Where, context: string): Where {
  return { ...where, context: where.context === "top" ? context : `${where.context} › ${context}` };
}

class Walker {
  ok = true;
  readonly segments: RawSegment[] = [];
  readonly flags: Flag[] = [];
  readonly redirects: RawRedirect[] = [];
  readonly texts: string[] = [];
  private readonly seen = new Set<string>();
  /** Moves of the working folder in the shell texts being walked (each text takes its own at its end). */
  private readonly moves: FolderMove[] = [];
  /** How many `cd`s and the like were seen (a text containing one has segments in an unknown folder). */
  private folderChanges = 0;

  constructor(
    private readonly platform: NodeJS.Platform,
    private readonly scripts: ScriptCache,
  ) {}

  flag(kind: FlagKind, detail: string, segment?: number): void {
    const key = `${kind}\0${detail}\0${segment ?? ""}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.flags.push(segment === undefined ? { kind, detail } : { kind, detail, segment });
  }

  parseFailed(detail: string): void {
    this.ok = false;
    this.flag("parse-error", detail);
  }

  async text(text: string, where: Where): Promise<void> {
    this.texts.push(text);
    const parsed = await this.scripts.parse(text);
    if (!parsed.ok) {
      const where_ = where.context === "top" ? "" : ` (in ${where.context})`;
      this.parseFailed(`could not be parsed${where_}: ${parsed.error}`);
      return;
    }
    const firstSegment = this.segments.length;
    const firstRedirect = this.redirects.length;
    const changesBefore = this.folderChanges;
    const movesBefore = this.moves.length;
    await this.script(parsed.script, where);
    const moves = this.moves.splice(movesBefore);
    if (this.folderChanges > changesBefore) {
      // a cd anywhere in this shell: where each of its commands runs is known only at run time
      for (const item of [...this.segments.slice(firstSegment), ...this.redirects.slice(firstRedirect)]) {
        item.cwdUnknown = true;
        item.folderMoves = [...moves, ...(item.folderMoves ?? [])];
      }
    }
  }

  async windows(text: string, shell: "cmd" | "powershell", where: Where): Promise<void> {
    const split = splitWindowsCommand(text, shell);
    if (!split.ok) {
      this.flag("complex-windows", split.reason);
      return;
    }
    if (split.args.length > 0) await this.argv(split.args, { ...where, shell: false });
  }

  private async script(script: Script, where: Where): Promise<void> {
    for (const statement of script) {
      if (statement.background) this.flag("background", "runs a command in the background (&)");
      for (const pipeline of statement.pipelines) {
        let from: number | undefined = where.stdinFrom; // a group or subshell's input is its shell's
        for (const [i, command] of pipeline.commands.entries()) {
          const first = this.segments.length;
          const { stdinFrom: _, ...rest } = where;
          const input = i === 0 ? where.stdinFrom : from;
          await this.command(command, input === undefined ? rest : { ...rest, stdinFrom: input });
          // the program that writes the next one's input: the first segment it started that is not a wrapper
          const own = this.segments.slice(first).findIndex((s) => !s.wrapper);
          from = command.kind === "simple" && own !== -1 ? first + own : undefined;
        }
      }
    }
  }

  private async scriptList(scripts: Script[], where: Where): Promise<void> {
    for (const script of scripts) await this.script(script, where);
  }

  /** Constructs bash (and zsh) read this way; in a script a POSIX sh (dash) runs, they mean something else. */
  private dialectCheck(where: Where, what: string): void {
    if (where.dialect === "sh")
      this.flag("expansion", `${what} means something else to sh (dash) than to bash`);
  }

  private async command(command: Command, where: Where): Promise<void> {
    switch (command.kind) {
      case "simple":
        return this.simple(command, where);
      case "function":
        this.flag("function-definition", `defines the shell function ${command.name}`);
        return this.command(command.body, within(where, `function ${command.name}`));
      case "coproc":
        this.flag("background", "starts a coprocess (runs in the background)");
        return this.command(command.body, within(where, "coproc"));
      case "compound": {
        const inner = within(where, command.type === "arith-for" ? "for" : command.type);
        if (where.dialect === "sh" && ["test", "arith", "arith-for", "select"].includes(command.type))
          this.dialectCheck(
            where,
            command.type === "test" ? "[[ ]]" : command.type === "select" ? "select" : "(( ))",
          );
        for (const word of command.words) await this.word(word, inner);
        if (command.variable !== undefined) {
          // the loop variable is assigned like any other variable
          const verdict = judgeVariable(command.variable);
          if (!verdict.ok)
            this.flag("dangerous-assignment", `${command.type} sets ${command.variable}: ${verdict.why}`);
        }
        for (const arith of command.arith) {
          if (!plainArithmetic(arith.text))
            this.flag(
              "expansion",
              `arithmetic on variables (${shorten(arith.text)}) can run commands hidden in their values`,
            );
          await this.scriptList(arith.subs, within(inner, "substitution"));
        }
        if (command.type === "test") {
          const ops = command.words.map((w) => w.raw);
          if (ops.includes("-v") || ops.includes("-R"))
            this.flag("expansion", "[[ -v ]] evaluates an array subscript, which can run commands");
          this.arithmeticOperands(
            "[[ ]]",
            command.words.map((w) => wordArg(w)),
          );
        }
        for (const body of command.bodies) await this.script(body, inner);
        for (const redirect of command.redirs) await this.redirect(redirect, where);
        return;
      }
    }
  }

  /** `-eq` & co. evaluate their operands as arithmetic: only plain numbers are inert. */
  private arithmeticOperands(what: string, args: Arg[]): void {
    args.forEach((arg, i) => {
      if (!TEST_ARITHMETIC_OPS.has(arg.value) || !arg.literal) return;
      for (const operand of [args[i - 1], args[i + 1]]) {
        if (operand && (!operand.literal || !/^\s*[-+]?\d+\s*$/.test(operand.value)))
          this.flag(
            "expansion",
            `${what} compares ${operand.value} as arithmetic, which can run commands hidden in a value`,
          );
      }
    });
  }

  /** Every part of a word must be understood; the scripts inside it are analysed as segments. */
  private async word(word: Word, where: Where): Promise<void> {
    const meaning = understandWord(word);
    if (meaning.kind === "unknown") this.flag("expansion", meaning.why);
    if (where.dialect === "sh" && /\$['"]/.test(word.raw))
      this.dialectCheck(where, `${word.raw} (a $'…' or $"…" string)`);
    await this.partScripts(word.parts, where);
  }

  private async partScripts(parts: readonly WordPart[], where: Where): Promise<void> {
    for (const part of parts) {
      if (part.kind === "procsubst") this.dialectCheck(where, "a process substitution");
      const context =
        part.kind === "procsubst"
          ? "process substitution"
          : part.kind === "cmdsubst" && part.backtick
            ? "backticks"
            : "substitution";
      await this.scriptList(subsOf(part), within(where, context));
    }
  }

  private async simple(command: Extract<Command, { kind: "simple" }>, where: Where): Promise<void> {
    for (const assignment of command.assigns) {
      if (assignment.array || assignment.subscript !== undefined) {
        this.flag(
          "expansion",
          `${assignment.raw}: arrays and subscripts are not analysed (a subscript is arithmetic, and shells keep tables in arrays)`,
        );
      }
      const verdict = judgeVariable(assignment.name);
      if (!verdict.ok) this.flag("dangerous-assignment", `sets ${assignment.name}: ${verdict.why}`);
      for (const value of assignment.values) await this.word(value, where);
    }
    if (command.words.length > 0) {
      const prefixPath = command.assigns.findLast((a) => a.name === "PATH");
      const pathValue =
        prefixPath?.values.length === 1 ? pathAssignmentValue(prefixPath.values[0] as Word) : null;
      const args = command.words.map(wordArg);
      const { stdinFrom, ...outer } = where;
      const redirected = command.redirs.some((r) => r.op.startsWith("<") && (r.fd === null || r.fd === "0"));
      const shellWhere: Where = {
        ...outer,
        stdin: writtenStdin(command.redirs),
        ...(pathValue !== null ? { pathOverride: pathValue } : {}),
        ...(stdinFrom !== undefined && !redirected ? { stdinFrom } : {}),
      };
      await this.argv(args, shellWhere);
      for (const word of command.words) await this.word(word, outer);
    } else if (command.assigns.length === 0 && where.dialect === "zsh" && command.redirs.length > 0) {
      this.flag(
        "dynamic-command",
        "zsh runs a program ($NULLCMD or $READNULLCMD) for a redirect without a command",
      );
    }
    for (const redirect of command.redirs) await this.redirect(redirect, where);
  }

  private async redirect(redirect: Redirect, where: Where): Promise<void> {
    const target = redirect.target ? wordArg(redirect.target) : null;
    const shown = `${redirect.fd ?? ""}${redirect.op}${target ? target.value : ""}`;
    if (redirect.op === "&>" || redirect.op === "&>>") this.dialectCheck(where, redirect.op);
    if (redirect.op === "<<<") this.dialectCheck(where, "<<<");
    if (READ_OPS.has(redirect.op)) {
      // reading is fine, unless the file is one the read rule keeps (file-reads.ts)
      if (redirect.op === "<" && target)
        this.redirects.push({ target, access: "read", context: where.context });
    } else if (redirect.op === ">&" || redirect.op === "<&") {
      // `>&2` duplicates a descriptor; `>& file` (bash: `&> file`) writes the file
      const duplicates = target?.literal && /^(\d+-?|-)$/.test(target.value);
      const harmless = target?.literal && SAFE_WRITE_TARGETS.has(target.value);
      if (!duplicates && !harmless) {
        this.flag("redirect", `writes to ${target?.value ?? "a file"} (${shown})`);
      }
    } else if (!target?.literal || !SAFE_WRITE_TARGETS.has(target.value)) {
      this.flag("redirect", `writes to ${target?.value ?? "a file"} (${shown})`);
    }
    const duplicates =
      (redirect.op === ">&" || redirect.op === "<&") && /^(\d+-?|-)$/.test(target?.value ?? "");
    if (target && !READ_OPS.has(redirect.op) && !duplicates && !redirect.heredoc)
      this.redirects.push({ target, access: "write", context: where.context });
    if (redirect.target && !redirect.heredoc) await this.word(redirect.target, where);
    if (redirect.heredoc) {
      for (const part of redirect.heredoc.parts) {
        const problem = partProblem(part);
        if (problem !== null) this.flag("expansion", `in a here-document: ${problem}`);
      }
      await this.partScripts(redirect.heredoc.parts, within(where, "here-document"));
    }
  }

  private push(segment: RawSegment): number {
    this.segments.push(segment);
    return this.segments.length - 1;
  }

  /** One command given as words: push its segment, then read what the tool table knows of it. */
  async argv(args: Arg[], where: Where): Promise<void> {
    const first = args[0];
    if (!first) return;
    const segment: RawSegment = { args, executable: first.value, context: where.context };
    if (where.stdinFrom !== undefined) segment.stdinFrom = where.stdinFrom;
    if (where.pathOverride !== undefined) segment.pathOverride = where.pathOverride;
    if (where.chdir !== undefined) segment.chdir = where.chdir;
    const index = this.push(segment);
    if (!first.literal) {
      segment.unresolvable = `${first.value} is not a literal command name`;
      this.flag("dynamic-command", `the command name ${first.value} is not a literal word`, index);
      return;
    }
    const win = this.platform === "win32";
    const bare = win ? !/[\\/]/.test(first.value) : !first.value.includes("/");
    const name = commandBaseName(first.value, this.platform);
    const viaShell = where.shell && bare;

    if (viaShell && SHELL_ONLY_BUILTINS.has(first.value) && toolRole(first.value, true) !== "builtin") {
      segment.unresolvable = `${first.value} is a shell builtin, not an executable file`;
      await this.riskyBuiltin(first.value, args, where, index);
      return;
    }
    if (viaShell) this.builtinTwins(name, args);

    const reading = readTool(args, { name, viaShell, dialect: where.dialect, stdin: where.stdin ?? null });
    if (reading) {
      await this.apply(reading, segment, index, where, toolRole(name, viaShell) === "wrapper");
      return;
    }
    const inline = inlineCodeOf(name, args);
    if (inline) {
      segment.inlineCode = true;
      this.flag("inline-code", inline.flag, index);
    }
  }

  /** What the table read: flags, builtins, and the commands and scripts the segment starts. */
  private async apply(
    reading: ToolReading,
    segment: RawSegment,
    index: number,
    where: Where,
    wrapper: boolean,
  ): Promise<void> {
    for (const flag of reading.flags) this.flag(flag.kind, flag.detail, index);
    if (reading.inlineCode) segment.inlineCode = true;
    if (reading.builtin) {
      segment.builtin = reading.builtin;
      segment.unresolvable = `${segment.executable} is a shell builtin, not an executable file`;
    }
    if (reading.changesFolder) {
      this.folderChanges++;
      this.moves.push(reading.movesTo ?? "unknown");
    }
    for (const inner of reading.inner) {
      if (wrapper) segment.wrapper = true;
      const chdir = inner.chdir;
      await this.argv(inner.args, {
        ...within(where, inner.context),
        shell: inner.viaShell ?? false,
        ...(inner.pathOverride !== undefined ? { pathOverride: inner.pathOverride } : {}),
        ...(chdir !== undefined ? { chdir: where.chdir ? path.join(where.chdir, chdir) : chdir } : {}),
      });
    }
    for (const script of reading.scripts) {
      if (!script.sameShell && where.depth + 1 > MAX_SHELL_DEPTH) {
        this.flag(
          "too-deep",
          `${script.context} scripts nested more than ${MAX_SHELL_DEPTH} deep are not analysed`,
          index,
        );
        continue;
      }
      await this.text(script.text, {
        ...within(where, script.context),
        stdin: null,
        depth: where.depth + (script.sameShell ? 0 : 1),
        shell: true,
        dialect: script.dialect,
        ...(segment.pathOverride !== undefined ? { pathOverride: segment.pathOverride } : {}),
      });
    }
  }

  /** printf and test are builtins with executable twins; the builtins can assign and evaluate. */
  private builtinTwins(name: string, args: Arg[]): void {
    const words = args.slice(1);
    if (name === "printf") {
      const v = words.findIndex((w) => /^-v/.test(w.value) || !w.literal);
      if (v !== -1 && words[v]?.literal) {
        const target =
          words[v]?.value === "-v" ? words[v + 1] : { value: words[v]?.value.slice(2) ?? "", literal: true };
        const m = target?.literal ? /^[A-Za-z_][A-Za-z0-9_]*$/.exec(target.value) : null;
        if (!m)
          this.flag(
            "expansion",
            `printf -v ${target?.value ?? ""}: only a plain name is analysed (a subscript is arithmetic)`,
          );
        else if (!judgeVariable(m[0]).ok) this.flag("dangerous-assignment", `printf -v sets ${m[0]}`);
      } else if (v !== -1) {
        this.flag("dynamic-argument", "printf reads options from a word known only when it runs");
      }
    }
    if (name === "test" || name === "[") {
      if (words.some((w) => w.value === "-v" || w.value === "-R"))
        this.flag("expansion", `${name} -v evaluates an array subscript, which can run commands`);
      if (words.some((w) => !w.literal && (w.splits ?? false)))
        this.flag("dynamic-argument", `${name} reads operators from a word known only when it runs`);
      this.arithmeticOperands(name, words);
    }
  }

  private async riskyBuiltin(name: string, args: Arg[], where: Where, index: number): Promise<void> {
    if (name === "source" || name === ".") {
      this.flag("source", `${name} runs the commands in ${args[1]?.value ?? "a file"}`, index);
      return;
    }
    if (name === "exec") {
      let i = 1;
      while (i < args.length && /^-[acl]+$/.test((args[i] as Arg).value))
        i += (args[i] as Arg).value.includes("a") ? 2 : 1;
      this.flag(
        "exec",
        i < args.length ? "exec replaces the shell with another program" : "exec changes the shell's files",
        index,
      );
      if (i < args.length) await this.argv(args.slice(i), { ...where, shell: false });
      return;
    }
    const risk = RISKY_BUILTINS[name];
    if (risk) this.flag(risk.kind, risk.detail, index);
  }
}

/**
 * What standard input holds when the command line writes it out itself: a here-document whose body is
 * literal (quoted delimiter, or no expansions at all) or a here-string of a literal word; else null.
 */
function writtenStdin(redirs: readonly Redirect[]): string | null {
  let text: string | null = null;
  for (const redirect of redirs) {
    if (redirect.fd !== null && redirect.fd !== "0") continue;
    if (redirect.heredoc) {
      const { body, quoted, parts } = redirect.heredoc;
      const literal = quoted || (parts.length === 0 && !body.includes("\\"));
      text = literal ? (redirect.op === "<<-" ? body.replace(/^\t+/gm, "") : body) : null;
    } else if (redirect.op === "<<<") {
      const word = redirect.target ? wordArg(redirect.target) : null;
      text = word?.literal ? `${word.value}\n` : null;
    } else if (redirect.op.startsWith("<")) {
      text = null;
    }
  }
  return text;
}

/** The value of `PATH=…` in front of a command, when it is literal. */
function pathAssignmentValue(word: Word): string | null {
  const value = wordArg(word);
  return value.literal ? value.value.replace(/^PATH\+?=/, "") : null;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}
