// Walks a parsed command (argv, POSIX shell string, or a simple Windows command line) and collects the
// segments that would run and the flags that need a person. Resolution happens afterwards (analyze.ts).
import path from "node:path";
import {
  DECLARATION_BUILTINS,
  DISPATCH_WRAPPERS,
  POSIX_SHELLS,
  SHELL_ONLY_BUILTINS,
  commandBaseName,
  dangerousVariable,
  findExecCommands,
  gitConfigOverride,
  inlineCodeOf,
  readsProgramFromStdin,
  shellInvocation,
  unwrapDispatch,
  type Arg,
} from "./command-rules.js";
import { subsOf, type Command, type Redirect, type Script, type Word } from "./shell-ast.js";
import type { ScriptCache } from "./shell-script.js";
import type { CommandInput, Flag, FlagKind } from "./types.js";
import { splitWindowsCommand } from "./windows-command.js";

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
  /** PATH a wrapper set for it (`env PATH=… cmd`, `env -i cmd`, `command -p cmd`). */
  pathOverride?: string;
  /** Folder a wrapper moved to before starting it (`env -C dir cmd`). */
  chdir?: string;
}

export interface Collected {
  ok: boolean;
  segments: RawSegment[];
  flags: Flag[];
}

interface Where {
  context: string;
  /** `sh -c` nesting depth. */
  depth: number;
  /** Run by a POSIX shell (builtins apply), rather than exec'd directly. */
  shell: boolean;
  pathOverride?: string;
  chdir?: string;
}

const SAFE_WRITE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);
const READ_OPS = new Set(["<", "<<", "<<-", "<<<"]);
const TEST_ARITHMETIC_OPS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"]);

export async function collectAnalysis(
  input: CommandInput,
  options: { platform: NodeJS.Platform; scripts: ScriptCache },
): Promise<Collected> {
  const walker = new Walker(options.platform, options.scripts);
  const top: Where = { context: "top", depth: 0, shell: false };
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
  return { ok: walker.ok, segments: walker.segments, flags: walker.flags };
}

/** A word as an argument: its value when it is literal, else its source text as a placeholder. */
export function wordArg(word: Word): Arg {
  let value = "";
  for (const part of word.parts) {
    if (part.kind === "lit") value += part.value;
    else if (part.kind === "tilde" && part.user === "") value += "~";
    else return { value: word.raw, literal: false };
  }
  return { value, literal: true };
}

function within(where: Where, context: string): Where {
  return { ...where, context: where.context === "top" ? context : `${where.context} › ${context}` };
}

class Walker {
  ok = true;
  readonly segments: RawSegment[] = [];
  readonly flags: Flag[] = [];
  private readonly seen = new Set<string>();

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
    const parsed = await this.scripts.parse(text);
    if (!parsed.ok) {
      const where_ = where.context === "top" ? "" : ` (in ${where.context})`;
      this.parseFailed(`could not be parsed${where_}: ${parsed.error}`);
      return;
    }
    await this.script(parsed.script, where);
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
        for (const command of pipeline.commands) await this.command(command, where);
      }
    }
  }

  private async scriptList(scripts: Script[], where: Where): Promise<void> {
    for (const script of scripts) await this.script(script, where);
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
        for (const word of command.words) await this.wordSubs(word, inner);
        for (const arith of command.arith) {
          this.arithmetic(arith.text);
          await this.scriptList(arith.subs, within(inner, "substitution"));
        }
        if (command.type === "test") {
          const op = command.words.find((w) => TEST_ARITHMETIC_OPS.has(w.raw));
          if (op)
            this.flag(
              "indirect-code",
              `[[ ${op.raw} ]] evaluates its operands as arithmetic, which can run commands`,
            );
        }
        for (const body of command.bodies) await this.script(body, inner);
        for (const redirect of command.redirs) await this.redirect(redirect, where);
        return;
      }
    }
  }

  private arithmetic(text: string): void {
    if (/[A-Za-z_$`]/.test(text)) {
      this.flag(
        "indirect-code",
        `arithmetic on variables (${shorten(text)}) can run commands hidden in their values`,
      );
    }
  }

  private async simple(command: Extract<Command, { kind: "simple" }>, where: Where): Promise<void> {
    for (const assignment of command.assigns) {
      if (dangerousVariable(assignment.name)) this.flag("dangerous-assignment", `sets ${assignment.name}`);
      for (const value of assignment.values) await this.wordSubs(value, where);
    }
    if (command.words.length > 0) {
      const prefixPath = command.assigns.findLast((a) => a.name === "PATH");
      const pathValue = prefixPath?.values.length === 1 ? wordArg(prefixPath.values[0] as Word) : null;
      const args = command.words.map(wordArg);
      const first = command.words[0] as Word;
      const dynamic = first.parts.some((p) => p.kind !== "lit" && !(p.kind === "tilde" && p.user === ""));
      const shellWhere: Where = pathValue?.literal ? { ...where, pathOverride: pathValue.value } : where;
      if (dynamic) {
        const index = this.push({ args, executable: first.raw, context: where.context });
        (this.segments[index] as RawSegment).unresolvable = `${first.raw} is not a literal command name`;
        this.flag("dynamic-command", `the command name ${first.raw} is not a literal word`, index);
      } else {
        await this.argv(args, shellWhere);
      }
      for (const word of command.words) await this.wordSubs(word, where);
    }
    for (const redirect of command.redirs) await this.redirect(redirect, where);
  }

  private async wordSubs(word: Word, where: Where): Promise<void> {
    for (const part of word.parts) {
      if (part.kind === "param" && part.risk) this.flag("indirect-code", part.risk);
      if (part.kind === "arith")
        this.arithmetic(part.text.replace(/^\$(\(\(|\[)/, "").replace(/(\)\)|\])$/, ""));
      const context =
        part.kind === "procsubst"
          ? "process substitution"
          : part.kind === "cmdsubst" && part.backtick
            ? "backticks"
            : "substitution";
      await this.scriptList(subsOf(part), within(where, context));
    }
  }

  private async redirect(redirect: Redirect, where: Where): Promise<void> {
    const target = redirect.target ? wordArg(redirect.target) : null;
    const shown = `${redirect.fd ?? ""}${redirect.op}${target ? target.value : ""}`;
    if (READ_OPS.has(redirect.op)) {
      // reading is fine
    } else if (redirect.op === ">&" || redirect.op === "<&") {
      if (!target?.literal || !/^(\d+-?|-)$/.test(target.value)) {
        this.flag("redirect", `writes to ${target?.value ?? "a file"} (${shown})`);
      }
    } else if (!target?.literal || !SAFE_WRITE_TARGETS.has(target.value)) {
      this.flag("redirect", `writes to ${target?.value ?? "a file"} (${shown})`);
    }
    if (redirect.target) await this.wordSubs(redirect.target, where);
    if (redirect.heredoc) await this.scriptList(redirect.heredoc.subs, within(where, "here-document"));
  }

  private push(segment: RawSegment): number {
    this.segments.push(segment);
    return this.segments.length - 1;
  }

  /** One command given as words: push its segment, then look through wrappers, shells and interpreters. */
  async argv(args: Arg[], where: Where): Promise<void> {
    const first = args[0];
    if (!first) return;
    const segment: RawSegment = { args, executable: first.value, context: where.context };
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

    if (where.shell && bare && SHELL_ONLY_BUILTINS.has(first.value)) {
      segment.unresolvable = `${first.value} is a shell builtin, not an executable file`;
      await this.builtin(first.value, args, where);
      return;
    }
    if (where.shell && bare) {
      const words = args.slice(1).map((a) => a.value);
      if (name === "printf" && words.some((w) => /^-v/.test(w))) {
        this.flag("indirect-code", "printf -v assigns to a variable whose subscript can run commands");
      }
      if ((name === "test" || name === "[") && words.some((w) => w === "-v" || w === "-R")) {
        this.flag("indirect-code", `${name} -v evaluates an array subscript, which can run commands`);
      }
      // the builtin evaluates the operands of -eq & co. as arithmetic: only plain numbers are inert
      if ((name === "test" || name === "[") && words.some((w) => TEST_ARITHMETIC_OPS.has(w))) {
        const operands = args
          .slice(1)
          .filter(
            (a) =>
              !TEST_ARITHMETIC_OPS.has(a.value) && !["[", "]", "!", "(", ")", "-a", "-o"].includes(a.value),
          );
        if (operands.some((a) => !a.literal || !/^[-+]?\d+$/.test(a.value.trim()))) {
          this.flag(
            "indirect-code",
            `${name} compares as arithmetic, which can run commands hidden in a value`,
          );
        }
      }
    }
    if (DISPATCH_WRAPPERS.has(name)) {
      const unwrapped = unwrapDispatch(name, args);
      if (unwrapped.kind === "opaque") {
        this.flag("dynamic-command", unwrapped.why, index);
        return;
      }
      for (const assignment of unwrapped.assignments) {
        const variable = assignment.slice(0, assignment.indexOf("="));
        if (dangerousVariable(variable)) this.flag("dangerous-assignment", `${name} sets ${variable}`);
      }
      if (unwrapped.writes) this.flag("redirect", `${name} -o writes to ${unwrapped.writes}`);
      if (unwrapped.kind === "inner") {
        segment.wrapper = true;
        const chdir = unwrapped.chdir;
        await this.argv(args.slice(unwrapped.innerIndex), {
          ...where,
          // `command` is a builtin: what it runs may be a builtin too; the others exec a file
          shell: name === "command" && where.shell && bare,
          ...(unwrapped.pathOverride !== undefined ? { pathOverride: unwrapped.pathOverride } : {}),
          ...(chdir !== undefined ? { chdir: where.chdir ? path.join(where.chdir, chdir) : chdir } : {}),
        });
      }
      return;
    }
    if (POSIX_SHELLS.has(name)) {
      const invocation = shellInvocation(args);
      if (invocation.kind === "stdin") {
        this.flag(
          "dynamic-command",
          `${name} reads its commands from standard input, which cannot be analysed`,
          index,
        );
      }
      if (invocation.kind !== "script") return;
      const script = args[invocation.scriptIndex] as Arg;
      if (!script.literal) {
        this.flag("dynamic-command", `the script of ${name} -c is not a literal string`, index);
      } else if (where.depth + 1 > MAX_SHELL_DEPTH) {
        this.flag(
          "too-deep",
          `${name} -c scripts nested more than ${MAX_SHELL_DEPTH} deep are not analysed`,
          index,
        );
      } else {
        await this.text(script.value, {
          ...within(where, `${name} -c`),
          depth: where.depth + 1,
          shell: true,
          ...(segment.pathOverride !== undefined ? { pathOverride: segment.pathOverride } : {}),
        });
      }
      return;
    }
    if (win && name === "cmd") {
      const at = args.findIndex((a, i) => i > 0 && /^\/[ck]$/i.test(a.value));
      if (at > 0) {
        if (where.depth + 1 > MAX_SHELL_DEPTH) this.flag("too-deep", "cmd /c nested too deep", index);
        else
          await this.windows(
            args
              .slice(at + 1)
              .map((a) => a.value)
              .join(" "),
            "cmd",
            { ...within(where, "cmd /c"), depth: where.depth + 1 },
          );
      }
      return;
    }
    const inline = inlineCodeOf(name, args) ?? (name === "git" ? gitConfigOverride(args) : null);
    if (inline) {
      segment.inlineCode = true;
      this.flag("inline-code", typeof inline === "string" ? inline : inline.flag, index);
    } else if (readsProgramFromStdin(name, args)) {
      this.flag(
        "dynamic-command",
        `${name} reads its program from standard input, which cannot be analysed`,
        index,
      );
    }
    if (name === "find") {
      for (const inner of findExecCommands(args)) {
        await this.argv(inner, { ...within(where, "find -exec"), shell: false });
      }
    }
  }

  private async builtin(name: string, args: Arg[], where: Where): Promise<void> {
    const index = this.segments.length - 1;
    if (name === "eval") this.flag("eval", "eval runs a string as shell commands", index);
    else if (name === "source" || name === ".") {
      this.flag("source", `${name} runs the commands in ${args[1]?.value ?? "a file"}`, index);
    } else if (name === "exec") {
      let i = 1;
      while (i < args.length && /^-[acl]+$/.test((args[i] as Arg).value))
        i += (args[i] as Arg).value.includes("a") ? 2 : 1;
      this.flag(
        "exec",
        i < args.length ? "exec replaces the shell with another program" : "exec changes the shell's files",
        index,
      );
      if (i < args.length) await this.argv(args.slice(i), { ...where, shell: false });
    } else if (DECLARATION_BUILTINS.has(name)) {
      for (const arg of args.slice(1)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(arg.value);
        if (m && dangerousVariable(m[1] as string)) this.flag("dangerous-assignment", `${name} sets ${m[1]}`);
      }
    }
  }
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}
