// Reads the options of one command line the way getopt and getopt_long do, from a table of the options a
// tool has (tool-table.ts). What an option does that needs a person is part of the table, so the rules
// for every tool are data read by this one function. Positive model: a word the reader cannot read for
// sure — an option the table does not list (when the tool's other options are not known to be inert),
// an abbreviation of a listed option, a word whose value is known only when it runs — is a problem, and
// problems need a person.
import type { Word } from "./shell-ast.js";
import type { FlagKind } from "./types.js";

/** One word of a command line: its value after quote removal, or its source text when it has expansions. */
export interface Arg {
  value: string;
  /** False when the word has expansions or globs: `value` is then only a placeholder (its source text). */
  literal: boolean;
  /** Unquoted expansion, glob or brace: it may become several words (some looking like options) or none. */
  splits?: boolean;
  /** Not literal, and its value may start with `-` (nothing literal in front of the expansion). */
  mayBeOption?: boolean;
  /** The shell word it came from, for working out the file names it becomes (path-word.ts). */
  word?: Word;
  /** Why its value is known only when it runs, once the read rule tried to work it out (file-reads.ts). */
  why?: string;
  /** Words that name files a finder found inside these folders (`find DIR -exec cat {} +`). */
  found?: { folders: Arg[] };
  /** Words xargs fills in from its input (the read rule looks at what writes that input). */
  fromInput?: true;
}

/** What an option (or operand) does that needs a person. `{}` in `detail` stands for its value. */
export interface Effect {
  kind: Extract<FlagKind, "inline-code" | "tool-option" | "redirect" | "dynamic-command">;
  detail: string;
}

export interface OptionSpec {
  /** It takes a value: the next word, or glued (`-oFILE`, `--output=FILE`). `optional`: only glued. */
  value?: true | "optional";
  /** For a short option with an optional value: what of the rest of the bundle is its value (default: all). */
  glued?: RegExp;
  effect?: Effect;
  /** Its value is a file written to: fine when it is /dev/null & co., else `effect` applies. */
  writesValue?: true;
  /** The words after it are the program's own, not options (`python -m mod -x`, `python -c code -x`). */
  endsOptions?: true;
}

export interface OptionTable {
  /** Single-letter options, bundled as `-abc` (a letter that takes a value ends the bundle). */
  short?: Record<string, OptionSpec>;
  /** `--name` options; also single-dash long options when `singleDashLong` is set. */
  long?: Record<string, OptionSpec>;
  /** Options may follow operands (GNU getopt's permutation); else reading stops at the first operand. */
  permute?: boolean;
  /** Options the table does not list: `prompt` (the positive model) or `inert` (known to be harmless). */
  other: "prompt" | "inert";
  /** Long options are also written with one dash (`-exec`, `-fprint`). */
  singleDashLong?: boolean;
  /** `+x` is an option too (shells). */
  plusOptions?: boolean;
}

export interface ReadOption {
  name: string;
  spec: OptionSpec | undefined;
  value?: Arg;
  index: number;
}

export interface Scan {
  options: ReadOption[];
  operands: { arg: Arg; index: number }[];
  /** Why the line cannot be read for sure; each one is a flag. */
  problems: string[];
  /** Effects of the options that were read (values substituted). */
  effects: Effect[];
  /** Index of the first word after the options (POSIX reading): the first operand or args.length. */
  end: number;
}

/** Files a write to which changes nothing on disk. */
export const HARMLESS_WRITE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "-"]);

function shown(arg: Arg | undefined): string {
  return arg ? arg.value : "…";
}

/**
 * Reads `args[from…]` against `table`. `stopAt(i)` ends option reading early (a sub-command, an inner
 * command). The tool's name is only for messages.
 */
export function scanOptions(
  tool: string,
  args: readonly Arg[],
  from: number,
  table: OptionTable,
  stopAt?: (arg: Arg, index: number) => boolean,
): Scan {
  const scan: Scan = { options: [], operands: [], problems: [], effects: [], end: args.length };
  const short = table.short ?? {};
  const long = table.long ?? {};
  let optionsDone = false;
  /** Set by an option after which the rest are operands. */
  let ends = false;

  const take = (name: string, spec: OptionSpec | undefined, index: number, value?: Arg) => {
    scan.options.push({ name, spec, index, ...(value ? { value } : {}) });
    if (spec?.endsOptions) ends = true;
    if (!spec?.effect) return;
    if (spec.writesValue && value?.literal && HARMLESS_WRITE_TARGETS.has(value.value)) return;
    scan.effects.push({ kind: spec.effect.kind, detail: spec.effect.detail.replace("{}", shown(value)) });
  };

  let i = from;
  for (; i < args.length; i++) {
    const arg = args[i] as Arg;
    if (ends && !optionsDone) {
      scan.end = i;
      optionsDone = true;
    }
    if (optionsDone) {
      scan.operands.push({ arg, index: i });
      continue;
    }
    if (stopAt?.(arg, i)) {
      scan.end = i;
      return scan;
    }
    if (!arg.literal) {
      // a word known only when it runs could be any option at all
      if (arg.splits || arg.mayBeOption) {
        scan.problems.push(`${arg.value} is known only when it runs, where ${tool} reads options`);
      }
      if (!table.permute) {
        scan.end = i;
        optionsDone = true;
      }
      scan.operands.push({ arg, index: i });
      continue;
    }
    const w = arg.value;
    if (w === "--") {
      scan.end = i + 1;
      optionsDone = true;
      continue;
    }
    const isLong = w.startsWith("--") || (table.singleDashLong === true && /^-[A-Za-z]{2,}/.test(w));
    if (isLong) {
      const body = w.startsWith("--") ? w : `-${w}`;
      const eq = body.indexOf("=");
      const given = eq === -1 ? body : body.slice(0, eq);
      const glued = eq === -1 ? undefined : body.slice(eq + 1);
      const lookup = table.singleDashLong && !w.startsWith("--") ? given.slice(1) : given;
      let name = lookup;
      let spec = long[lookup];
      if (!spec && lookup.length > 2) {
        // getopt_long accepts any unambiguous abbreviation: `--out=x` is `--output=x`
        const candidates = Object.keys(long).filter((k) => k.startsWith(lookup));
        if (candidates.some((k) => long[k]?.effect)) {
          scan.problems.push(
            `${w} abbreviates an option of ${tool} that needs a person (${candidates.join(", ")})`,
          );
          continue;
        }
        if (candidates.length === 1) {
          name = candidates[0] as string;
          spec = long[name];
        }
      }
      if (!spec) {
        if (table.other === "prompt")
          scan.problems.push(`${tool} option ${given} is not one Gatehouse knows`);
        continue;
      }
      if (spec.value === true && glued === undefined) {
        take(name, spec, i, args[i + 1]);
        if (args[i + 1] === undefined) scan.problems.push(`${tool} ${given} is missing its value`);
        i++;
      } else {
        take(name, spec, i, glued === undefined ? undefined : { value: glued, literal: true });
      }
      continue;
    }
    const plus = table.plusOptions === true && /^\+[A-Za-z]/.test(w);
    if ((w.startsWith("-") && w.length > 1) || plus) {
      for (let k = 1; k < w.length; k++) {
        const letter = w[k] as string;
        const spec = short[letter];
        if (!spec) {
          if (table.other === "prompt")
            scan.problems.push(`${tool} option -${letter} is not one Gatehouse knows`);
          continue;
        }
        if (spec.value === "optional") {
          const rest = w.slice(k + 1);
          const value = spec.glued ? (spec.glued.exec(rest)?.[0] ?? "") : rest;
          if (value !== "") {
            take(letter, spec, i, { value, literal: true });
            k += value.length;
            if (k + 1 >= w.length) break;
            continue;
          }
          take(letter, spec, i);
          continue;
        }
        if (spec.value === true) {
          const rest = w.slice(k + 1);
          if (rest !== "") take(letter, spec, i, { value: rest, literal: true });
          else {
            take(letter, spec, i, args[i + 1]);
            if (args[i + 1] === undefined) scan.problems.push(`${tool} -${letter} is missing its value`);
            i++;
          }
          break;
        }
        take(letter, spec, i);
      }
      continue;
    }
    // an operand
    scan.operands.push({ arg, index: i });
    if (!table.permute) {
      scan.end = i;
      optionsDone = true;
    }
  }
  return scan;
}
