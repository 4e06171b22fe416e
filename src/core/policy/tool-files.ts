// The tool table's part for files (docs/decisions.md "One read rule"): which words of a command line name
// files the program opens — reads (cat's operands, grep's files after the pattern, cp's sources, tar's
// members, dd's `if=`), writes (cp's target, dd's `of=`) — and which programs open none of the files
// they name (echo, ls, basename…). It reads the words after the shell expanded them (path-word.ts), so
// what a row sees is what the program sees. A program with no row may open any of its words: all of
// them are judged as files (conservative). The read rule itself is in read-rule.ts, applied by
// file-reads.ts.
import { scanOptions, type Arg, type OptionTable, type Scan } from "./option-scan.js";
import type { OptionSpec } from "./option-scan.js";
import { valued as v } from "./option-specs.js";
import { readSedScript } from "./sed-script.js";
import { findStartPoints, SED_TABLE, SORT_TABLE, TAR_MODES, TAR_TABLE } from "./tool-data.js";
import { LESS, SDIFF, SHUF, XXD } from "./tool-writers.js";
import { WRAPPER_TABLES } from "./tool-wrappers.js";

/** How a program uses a file it names: reads it, writes it, or either (moves, compresses in place…). */
export type FileAccess = "read" | "write" | "any";

/**
 * What running a program may do to files other commands of the same line then open: nothing, write
 * the contents of files it names, or create, move or replace files and links (a later reader may then
 * open something other than what was judged).
 */
export type FileChanges = "nothing" | "contents" | "links";

export interface FileUse {
  arg: Arg;
  access: FileAccess;
  /** It reads a whole folder tree (grep -r, tar c, cp -r): what lies inside counts too. */
  recursive?: true;
  /** Inside that tree it follows links (grep -R, zip -r, tar -h): where they lead counts too. */
  follows?: true;
  /**
   * It opens names a finder printed from inside this folder (`find src | xargs cat`): every file in the
   * tree counts, where its links lead, and names a shell or xargs would split or read as options.
   */
  found?: true;
}

export interface FileReading {
  uses: FileUse[];
  /** A word known only when it runs where the program may take a file (it needs a person), or null. */
  unknown: string | null;
  changes: FileChanges;
}

/** Opens none of the files its words name (it may list names or look at metadata). */
export const NAMES_ONLY: FileReading = Object.freeze({ uses: [], unknown: null, changes: "nothing" });

type Row = (name: string, args: readonly Arg[]) => FileReading;

interface ReaderSpec {
  /** Which options take a value (so a value is never taken for a file; unknown options take none). */
  table: OptionTable;
  /** Leading operands that are a program or pattern, not files, unless one of `unless` is given. */
  program?: { unless: readonly string[] };
  /** Options whose value is a file read / written. */
  reads?: readonly string[];
  writes?: readonly string[];
  /** The operands: read (default), written, or none (only option values name files). */
  operands?: FileAccess | "none";
  /** Options that make operand reads walk folders (`true`: always). */
  recursive?: readonly string[] | true;
  /** Options under which links inside those folders are followed (`true`: always when recursive). */
  follows?: readonly string[] | true;
  /** Options that turn link following off again (zip -y). */
  noFollow?: readonly string[];
  /** Recursive with no file operand reads the folder it runs in (grep -r, rg). */
  defaultsToCwd?: boolean;
  /** Operands that are not files (awk's `name=value`). */
  notFile?: RegExp;
  changes?: FileChanges;
}

const CWD: Arg = { value: ".", literal: true };

/** The table with `names` known as options without a value (option-scan.ts records only known ones). */
function knowing(t: OptionTable, names: readonly string[]): OptionTable {
  const short = { ...t.short };
  const long = { ...t.long };
  for (const name of names) {
    if (name.startsWith("--")) long[name] ??= {};
    else if (name.length === 1) short[name] ??= {};
  }
  return { ...t, short, long };
}
const has = (scan: Scan, names: readonly string[]) => scan.options.some((o) => names.includes(o.name));

/** The folders whose files a finder's names stand for, each read whole (file-reads.ts looks inside). */
export function foundUses(arg: Arg, access: FileAccess): FileUse[] {
  return (arg.found?.folders ?? []).map((folder) => ({
    arg: folder,
    access,
    recursive: true as const,
    follows: true as const,
    found: true as const,
  }));
}

/**
 * A program the table does not describe may open any of its words: each is judged as a file, and so is
 * a value glued to an option (`--file=PATH`, `-fPATH`).
 */
export function anyWord(name: string, args: readonly Arg[], changes: FileChanges): FileReading {
  const uses: FileUse[] = [];
  let unknown: string | null = null;
  for (const arg of args.slice(1)) {
    if (!arg.literal && arg.found) {
      uses.push(...foundUses(arg, "any"));
      continue;
    }
    if (!arg.literal) {
      unknown ??= `${name} may open ${arg.value} as a file, and ${arg.why ?? "it is known only when it runs"}`;
      continue;
    }
    uses.push({ arg, access: "any" });
    const w = arg.value;
    if (w.startsWith("-")) {
      const eq = w.indexOf("=");
      if (eq !== -1) uses.push({ arg: { value: w.slice(eq + 1), literal: true }, access: "any" });
      else if (/^-[^-]./.test(w)) uses.push({ arg: { value: w.slice(2), literal: true }, access: "any" });
    }
  }
  return { uses, unknown, changes };
}

/** Why the program opens a file known only when it runs: the word it takes as a file, and why. */
export function unknownFile(name: string, arg: Arg): string {
  return `${name} takes ${arg.value} as a file, and ${arg.why ?? "its value is known only when it runs"}`;
}

/** A word known only when it runs, where the program reads options, may be one that names a file. */
function unknownOption(args: readonly Arg[], name: string): string | null {
  const word = args.slice(1).find((a) => !a.literal && !a.found && (a.splits || a.mayBeOption));
  return word
    ? `${name} may take ${word.value} as an option naming a file, and ${word.why ?? "it is known only when it runs"}`
    : null;
}

function reader(spec: ReaderSpec): Row {
  const known = knowing(spec.table, [
    ...(spec.program?.unless ?? []),
    ...(Array.isArray(spec.recursive) ? spec.recursive : []),
    ...(Array.isArray(spec.follows) ? spec.follows : []),
    ...(spec.noFollow ?? []),
  ]);
  return (name, args) => {
    const scan = scanOptions(name, args, 1, known);
    const uses: FileUse[] = [];
    let unknown = unknownOption(args, name);
    const recursive = spec.recursive === true || (spec.recursive !== undefined && has(scan, spec.recursive));
    const follows =
      recursive &&
      (spec.follows === true || (spec.follows !== undefined && has(scan, spec.follows))) &&
      !(spec.noFollow && has(scan, spec.noFollow));
    const use = (arg: Arg, access: FileAccess): void => {
      if (!arg.literal && arg.found) {
        uses.push(...foundUses(arg, access));
        return;
      }
      if (!arg.literal) {
        unknown ??= unknownFile(name, arg);
        return;
      }
      if (spec.notFile?.test(arg.value)) return;
      uses.push({
        arg,
        access,
        ...(recursive && access !== "write" ? { recursive: true as const } : {}),
        ...(follows && access !== "write" ? { follows: true as const } : {}),
      });
    };
    for (const option of scan.options) {
      if (!option.value) continue;
      if (spec.reads?.includes(option.name)) use(option.value, "read");
      else if (spec.writes?.includes(option.name)) use(option.value, "write");
    }
    let operands = scan.operands.map((o) => o.arg);
    if (spec.program && !has(scan, spec.program.unless)) operands = operands.slice(1);
    const access = spec.operands ?? "read";
    if (access !== "none") {
      if (operands.length === 0 && recursive && spec.defaultsToCwd) operands = [CWD];
      for (const arg of operands) use(arg, access);
    }
    return { uses, unknown, changes: spec.changes ?? "nothing" };
  };
}

/**
 * An option table from space-separated names (`-x` letters and `--long` names alike): `values` take a
 * value, `optional` take one only when glued (`--color=auto`). Options it does not list take none, so
 * the word after one is taken for a file: never fewer files than the program opens.
 */
function table(values: string, optional = ""): OptionTable {
  const short: NonNullable<OptionTable["short"]> = {};
  const long: NonNullable<OptionTable["long"]> = {};
  const add = (names: string, spec: OptionSpec) => {
    for (const name of names.split(" ").filter(Boolean)) {
      if (name.startsWith("--")) long[name] = spec;
      else short[name.slice(1)] = spec;
    }
  };
  add(values, v);
  add(optional, { value: "optional" });
  return { short, long, permute: true, other: "inert" };
}

/** Reads its operands; `values`: its options that take a value. */
const reads = (values = "", rest: Partial<ReaderSpec> = {}): Row => reader({ table: table(values), ...rest });

// ---- grep and friends ---------------------------------------------------------------------------

const GREP = reader({
  table: table(
    "-e -f -m -A -B -C -d -D --regexp --file --max-count --after-context --before-context --directories " +
      "--devices --exclude --exclude-from --exclude-dir --include --label --binary-files",
    "--context --color --colour",
  ),
  program: { unless: ["e", "f", "--regexp", "--file"] },
  reads: ["f", "--file", "--exclude-from"],
  recursive: ["r", "R", "--recursive", "--dereference-recursive"],
  follows: ["R", "--dereference-recursive"],
  defaultsToCwd: true,
});

const RG_TABLE = table(
  "-e -f -g -t -T -m -A -B -C -M -j -r -E -d --regexp --file --glob --iglob --type --type-not --type-add " +
    "--type-clear --max-count --after-context --before-context --context --max-columns --threads --replace " +
    "--encoding --max-depth --max-filesize --sort --sortr --colors --path-separator --pre --pre-glob " +
    "--ignore-file --context-separator --field-match-separator --field-context-separator --dfa-size-limit " +
    "--regex-size-limit --engine --hyperlink-format --color",
);

const RG = reader({
  table: RG_TABLE,
  program: { unless: ["e", "f", "--regexp", "--file", "--files", "--type-list"] },
  reads: ["f", "--file", "--ignore-file"],
  recursive: true,
  follows: ["L", "--follow"],
  defaultsToCwd: true,
});

const AG = reader({
  table: table(
    "-G -g -m -p --ignore --ignore-dir --depth --path-to-ignore --file-search-regex --pager",
    "-A -B -C --after --before --context",
  ),
  program: { unless: ["g"] },
  reads: ["p", "--path-to-ignore"],
  recursive: true,
  follows: ["f", "--follow"],
  defaultsToCwd: true,
});

// ---- programs with a program of their own (sed, awk, jq) ----------------------------------------

function readSed(name: string, args: readonly Arg[]): FileReading {
  const reading = reader({
    table: SED_TABLE,
    program: { unless: ["e", "f", "--expression", "--file"] },
    reads: ["f", "--file"],
  })(name, args);
  // the script's own `r`/`R` commands read files too
  const scan = scanOptions(name, args, 1, SED_TABLE);
  const given = scan.options.filter((o) => o.name === "e" || o.name === "--expression").map((o) => o.value);
  const scripts = given.length > 0 || has(scan, ["f", "--file"]) ? given : [scan.operands[0]?.arg];
  for (const script of scripts) {
    if (!script?.literal) continue; // the walker already asks about a script known only when it runs
    const verdict = readSedScript(script.value);
    if (verdict.ok)
      for (const file of verdict.reads)
        reading.uses.push({ arg: { value: file, literal: true }, access: "read" });
  }
  if (has(scan, ["i", "--in-place"])) reading.changes = "contents";
  return reading;
}

const AWK = reader({
  table: table("-F -v -f -i -l -e -E --field-separator --assign --file --include --load --source --exec"),
  program: { unless: ["f", "e", "E", "--file", "--source", "--exec"] },
  reads: ["f", "i", "E", "--file", "--include", "--exec"],
  notFile: /^[A-Za-z_][A-Za-z0-9_]*=/,
});

/** jq: a filter, then files; `--arg NAME VALUE` and friends take two words; after `--args` words are strings. */
function readJq(name: string, args: readonly Arg[]): FileReading {
  const uses: FileUse[] = [];
  let unknown = unknownOption(args, name);
  let filterSeen = false;
  let stringsOnly = false;
  let fromFile = false;
  for (let i = 1; i < args.length; i++) {
    const a = args[i] as Arg;
    const w = a.literal ? a.value : "";
    if (a.literal && !stringsOnly && w.startsWith("-") && w !== "-") {
      if (["--arg", "--argjson"].includes(w)) i += 2;
      else if (["--slurpfile", "--rawfile"].includes(w)) {
        const file = args[i + 2];
        if (file) uses.push({ arg: file, access: "read" });
        i += 2;
      } else if (w === "-f" || w === "--from-file") {
        fromFile = true;
        const file = args[i + 1];
        if (file) uses.push({ arg: file, access: "read" });
        i++;
      } else if (["-L", "--indent"].includes(w)) {
        if (w === "-L" && args[i + 1])
          uses.push({ arg: args[i + 1] as Arg, access: "read", recursive: true });
        i++;
      } else if (w === "--args" || w === "--jsonargs") stringsOnly = true;
      continue;
    }
    if (!filterSeen && !fromFile) {
      filterSeen = true;
      continue;
    }
    if (stringsOnly) continue;
    if (!a.literal) unknown ??= unknownFile(name, a);
    else uses.push({ arg: a, access: "read" });
  }
  for (const use of uses) if (!use.arg.literal) unknown ??= unknownFile(name, use.arg);
  return { uses: uses.filter((u) => u.arg.literal), unknown, changes: "nothing" };
}

// ---- copying, moving, linking -------------------------------------------------------------------

/** cp, mv, install, rsync, scp: every operand but the last is a source; `-t DIR` names the target instead. */
function copier(spec: {
  values: string;
  optional?: string;
  sources: FileAccess;
  recursive: readonly string[] | true;
  follows: readonly string[] | true;
  target?: readonly string[];
}): Row {
  const t = knowing(table(spec.values, spec.optional ?? ""), [
    ...(Array.isArray(spec.recursive) ? spec.recursive : []),
    ...(Array.isArray(spec.follows) ? spec.follows : []),
  ]);
  return (name, args) => {
    const scan = scanOptions(name, args, 1, t);
    let unknown = unknownOption(args, name);
    const recursive = spec.recursive === true || has(scan, spec.recursive);
    const follows = recursive && (spec.follows === true || has(scan, spec.follows));
    const targetOption = scan.options.find((o) => spec.target?.includes(o.name));
    const operands = scan.operands.map((o) => o.arg);
    const sources = targetOption ? operands : operands.slice(0, -1);
    const targets = targetOption?.value ? [targetOption.value] : operands.slice(-1);
    const uses: FileUse[] = [];
    for (const arg of [...sources, ...targets]) {
      if (!arg.literal && arg.found && sources.includes(arg)) {
        uses.push(...foundUses(arg, spec.sources));
        continue;
      }
      if (!arg.literal) {
        unknown ??= unknownFile(name, arg);
        continue;
      }
      const source = sources.includes(arg);
      uses.push({
        arg,
        access: source ? spec.sources : "write",
        ...(source && recursive ? { recursive: true as const } : {}),
        ...(source && follows ? { follows: true as const } : {}),
      });
    }
    return { uses, unknown, changes: "links" };
  };
}

/** ln: what a link points to is reached through it; a relative target is taken from the link's folder. */
function readLn(name: string, args: readonly Arg[]): FileReading {
  const scan = scanOptions(name, args, 1, table("-S -t --suffix --target-directory", "--backup"));
  let unknown = unknownOption(args, name);
  const operands = scan.operands.map((o) => o.arg);
  const targetDir = scan.options.find((o) => o.name === "t" || o.name === "--target-directory")?.value;
  const targets = targetDir || operands.length === 1 ? operands : operands.slice(0, -1);
  const link = targetDir ?? (operands.length > 1 ? operands.at(-1) : undefined);
  const uses: FileUse[] = [];
  for (const arg of [...targets, ...(link ? [link] : [])]) {
    if (!arg.literal) {
      unknown ??= unknownFile(name, arg);
      continue;
    }
    const isLink = arg === link;
    uses.push({ arg, access: isLink ? "write" : "read" });
    if (!isLink && link?.literal && !arg.value.startsWith("/")) {
      // `ln -s ../x dir/l` points at dir/../x: the target is judged from the link's folder as well
      const folder = link.value.includes("/") ? link.value.slice(0, link.value.lastIndexOf("/") + 1) : "";
      uses.push({ arg: { value: `${folder}${arg.value}`, literal: true }, access: "read" });
      uses.push({ arg: { value: `${link.value}/${arg.value}`, literal: true }, access: "read" });
    }
  }
  return { uses, unknown, changes: "links" };
}

/** dd: `if=` is read, `of=` written; its other operands name no file. */
function readDd(name: string, args: readonly Arg[]): FileReading {
  const uses: FileUse[] = [];
  let unknown: string | null = null;
  for (const arg of args.slice(1)) {
    if (!arg.literal) {
      unknown ??= unknownFile(name, arg);
      continue;
    }
    const m = /^(if|of)=(.*)$/s.exec(arg.value);
    if (m)
      uses.push({ arg: { value: m[2] as string, literal: true }, access: m[1] === "if" ? "read" : "write" });
  }
  return { uses, unknown, changes: "contents" };
}

/** tar: members added are read (folders whole), `-f` is the archive, `-T` a list of names read. */
function readTar(name: string, args: readonly Arg[]): FileReading {
  // old style `tar czf out.tar dir`: the letters' values follow in order (as tool-data.ts reads it)
  let words = [...args];
  const first = args[1];
  if (first?.literal && /^[A-Za-z]+$/.test(first.value)) {
    const rebuilt: Arg[] = [args[0] as Arg];
    let next = 2;
    for (const letter of first.value) {
      rebuilt.push({ value: `-${letter}`, literal: true });
      if (TAR_TABLE.short?.[letter]?.value === true) {
        const value = args[next++];
        if (value) rebuilt.push(value);
      }
    }
    words = [...rebuilt, ...args.slice(next)];
  }
  const scan = scanOptions(name, words, 1, TAR_TABLE);
  let unknown = unknownOption(words, name);
  const mode = scan.options.map((o) => TAR_MODES[o.name]).find((m) => m !== undefined);
  const follows = has(scan, ["h", "--dereference"]);
  const uses: FileUse[] = [];
  const add = (arg: Arg | undefined, access: FileAccess, tree = false) => {
    if (!arg) return;
    if (!arg.literal) {
      unknown ??= unknownFile(name, arg);
      return;
    }
    uses.push({
      arg,
      access,
      ...(tree ? { recursive: true as const } : {}),
      ...(tree && follows ? { follows: true as const } : {}),
    });
  };
  for (const o of scan.options) {
    if (o.name === "f" || o.name === "--file") add(o.value, mode === "writes" ? "write" : "read");
    else if (["T", "--files-from", "X", "--exclude-from"].includes(o.name)) add(o.value, "read");
    else if (o.name === "C" || o.name === "--directory") add(o.value, mode === "extracts" ? "write" : "read");
  }
  const folders = scan.options.filter((o) => o.name === "C" || o.name === "--directory").map((o) => o.value);
  if (mode === "writes") {
    for (const { arg } of scan.operands) {
      add(arg, "read", true);
      // `tar -C ~ -c .ssh`: a member is taken from the folder -C named
      for (const folder of folders)
        if (folder?.literal && arg.literal && !arg.value.startsWith("/"))
          add({ value: `${folder.value}/${arg.value}`, literal: true }, "read", true);
    }
    if (has(scan, ["T", "--files-from"]))
      unknown ??= `${name} adds the files a list names, known only when it runs`;
  }
  return { uses, unknown, changes: mode === "reads" ? "nothing" : "links" };
}

/** zip ARCHIVE FILE…: the archive is written, the files read (`-r` whole folders, links followed unless -y). */
function readZip(name: string, args: readonly Arg[]): FileReading {
  const reading = reader({
    table: table(
      "-b -n -t -tt -i -x -P -O --temp-path --suffixes --from-date --before-date --password --output-file",
    ),
    recursive: ["r", "R", "--recurse-paths", "--recurse-patterns"],
    follows: true,
    noFollow: ["y", "--symlinks"],
    changes: "contents",
  })(name, args);
  const [archive] = reading.uses;
  if (archive) reading.uses[0] = { arg: archive.arg, access: "write" };
  if (args.some((a) => a.literal && (a.value === "-@" || a.value === "--names-stdin")))
    reading.unknown ??= `${name} adds the files named on its input, known only when it runs`;
  return reading;
}

/** unzip ARCHIVE [members…] [-d DIR]: the archive is read; the members are names inside it. */
function readUnzip(name: string, args: readonly Arg[]): FileReading {
  const scan = scanOptions(name, args, 1, table("-d -x -P -I -O"));
  const unknown = unknownOption(args, name);
  const archive = scan.operands[0]?.arg;
  const uses: FileUse[] = [];
  if (archive?.literal) uses.push({ arg: archive, access: "read" });
  const folder = scan.options.find((o) => o.name === "d")?.value;
  if (folder?.literal) uses.push({ arg: folder, access: "write" });
  return {
    uses,
    unknown: archive && !archive.literal ? unknownFile(name, archive) : unknown,
    changes: "links",
  };
}

/** gzip and friends compress or expand a file in place (it is replaced), or print it (-c, -t, -l). */
function compressor(values: string): Row {
  const spec = knowing(table(values), ["c", "t", "l", "--stdout", "--to-stdout", "--test", "--list"]);
  return (name, args) => {
    const scan = scanOptions(name, args, 1, spec);
    const prints = has(scan, ["c", "t", "l", "--stdout", "--to-stdout", "--test", "--list"]);
    const reading = reader({ table: spec, changes: prints ? "nothing" : "links" })(name, args);
    if (!prints) for (const use of reading.uses) use.access = "any";
    return reading;
  };
}

/** git sub-commands that change no file in the work tree (the others may check files or links out). */
const GIT_LOOKS = new Set([
  "status",
  "log",
  "diff",
  "show",
  "ls-files",
  "ls-tree",
  "ls-remote",
  "grep",
  "blame",
  "rev-parse",
  "rev-list",
  "describe",
  "shortlog",
  "cat-file",
  "show-ref",
  "for-each-ref",
  "version",
  "help",
  "whatchanged",
  "count-objects",
  "check-ignore",
  "check-attr",
  "var",
  "name-rev",
  "merge-base",
]);

/** git: any of its words may name a file (conservative); what it may change depends on the sub-command. */
function readGit(name: string, args: readonly Arg[]): FileReading {
  const sub = args.slice(1).find((a) => !a.literal || !a.value.startsWith("-"));
  const looks = sub?.literal === true && GIT_LOOKS.has(sub.value) && args[1] === sub;
  // the sub-command's name is never a file git opens (an alias's body comes from its config)
  const named = sub !== undefined && args[1] === sub && sub.literal && /^[a-z][a-z0-9-]*$/.test(sub.value);
  const words = named ? [args[0] as Arg, ...args.slice(2)] : args;
  return anyWord(name, words, looks ? "nothing" : "links");
}

// ---- the table ----------------------------------------------------------------------------------

const HEAD_TAIL = "-n -c -s --lines --bytes --pid --sleep-interval --max-unchanged-stats";
const SUMS = "";
const BAT =
  "-l -H -r -m --language --highlight-line --line-range --map-syntax --theme --style --tabs --wrap " +
  "--terminal-width --color --italic-text --decorations --paging --pager --file-name";

const ROWS: Record<string, Row> = {
  cat: reads(),
  tac: reads("-s --separator"),
  nl: reads("-b -d -f -h -i -l -n -s -v -w"),
  head: reads(HEAD_TAIL),
  tail: reads(HEAD_TAIL),
  less: reader({ table: LESS, reads: ["k", "--lesskey-file", "--lesskey-src"] }),
  more: reads("-n"),
  most: reads(),
  bat: reads(BAT),
  batcat: reads(BAT),
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  zgrep: GREP,
  rg: RG,
  ag: AG,
  ack: reader({
    table: table("-A -B -C -m -t -g --type --ignore-dir --ignore-file --match --output --pager"),
    program: { unless: ["f", "g", "--match"] },
    recursive: true,
    follows: ["--follow"],
    defaultsToCwd: true,
  }),
  sed: readSed,
  gsed: readSed,
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  nawk: AWK,
  jq: readJq,
  gojq: readJq,
  jaq: readJq,
  // its first operand is usually an expression, but Go's yq also takes a lone file: all are judged as files
  yq: reads("-o -I -p --output-format --input-format --indent --front-matter --expression --from-file", {
    reads: ["--from-file"],
  }),
  sort: reader({
    table: SORT_TABLE,
    reads: ["--files0-from", "--random-source"],
    writes: ["o", "--output"],
    changes: "contents",
  }),
  uniq: (name, args) => {
    const reading = reads("-f -s -w --skip-fields --skip-chars --check-chars", { changes: "contents" })(
      name,
      args,
    );
    if (reading.uses[1]) reading.uses[1] = { arg: reading.uses[1].arg, access: "write" };
    return reading;
  },
  wc: reads("--files0-from", { reads: ["--files0-from"] }),
  cut: reads("-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter"),
  paste: reads("-d --delimiters"),
  join: reads("-a -e -j -o -t -v -1 -2"),
  comm: reads("--output-delimiter"),
  diff: reader({
    table: table(
      "-C -U -I -x -X -F -L -S -D --label --ignore-matching-lines --exclude --exclude-from --starting-file " +
        "--from-file --to-file --show-function-line --horizon-lines --line-format --old-line-format " +
        "--new-line-format --unchanged-line-format --old-group-format --new-group-format " +
        "--changed-group-format --unchanged-group-format --ifdef --tabsize --width --palette",
      "--color --context --unified",
    ),
    reads: ["X", "--exclude-from", "--from-file", "--to-file"],
    recursive: ["r", "--recursive"],
  }),
  diff3: reads("-L --label --diff-program"),
  sdiff: reader({ table: SDIFF, writes: ["o", "--output"] }),
  cmp: reads("-i -n --ignore-initial --bytes"),
  fold: reads("-w --width"),
  fmt: reads("-w -p -g --width --prefix --goal"),
  column: reads(
    "-c -s -o -n -N -E -H -R -T -W -r -l -O --output-width --separator --output-separator --table-name " +
      "--table-columns --table-order --table-right --table-truncate --table-hide --table-wrap --tree " +
      "--tree-id --tree-parent --table-columns-limit --table-noextreme",
  ),
  expand: reads("-t --tabs"),
  unexpand: reads("-t --tabs"),
  rev: reads(),
  tsort: reads(),
  pr: reader({
    table: table(
      "-h -l -o -w -W -N --header --length --indent --width --page-width --first-line-number",
      "-e -i -n -s -S --expand-tabs --output-tabs --number-lines --separator --sep-string",
    ),
  }),
  od: reader({
    table: table("-A -j -N -S -t --address-radix --skip-bytes --read-bytes --format", "-w --strings --width"),
  }),
  xxd: (name, args) => {
    const reading = reader({ table: XXD })(name, args);
    if (reading.uses[1]) reading.uses[1] = { arg: reading.uses[1].arg, access: "write" };
    return reading;
  },
  hexdump: reads("-e -f -n -s", { reads: ["f"] }),
  hd: reads("-e -f -n -s", { reads: ["f"] }),
  strings: reads("-n -t -e -T -s --bytes --radix --encoding --target --output-separator"),
  base64: reads("-w --wrap"),
  base32: reads("-w --wrap"),
  basenc: reads("-w --wrap"),
  md5sum: reads(SUMS),
  sha1sum: reads(SUMS),
  sha224sum: reads(SUMS),
  sha256sum: reads(SUMS),
  sha384sum: reads(SUMS),
  sha512sum: reads(SUMS),
  b2sum: reads("-l --length"),
  cksum: reads("-a -l --algorithm --length"),
  sum: reads(),
  shasum: reads("-a --algorithm"),
  file: reads("-e -F -f -m -P --exclude --separator --files-from --magic-file --parameter", {
    reads: ["f", "--files-from", "m", "--magic-file"],
  }),
  iconv: reads("-f -t -o --from-code --to-code --output", { writes: ["o", "--output"], changes: "contents" }),
  split: (name, args) => {
    const reading = reads(
      "-a -b -C -l -n -t --suffix-length --additional-suffix --bytes --line-bytes --lines --number " +
        "--separator --filter",
      { changes: "contents" },
    )(name, args);
    reading.uses = reading.uses.slice(0, 1); // the second operand is the prefix of the files it writes
    return reading;
  },
  csplit: (name, args) => {
    const reading = reads("-b -f -n --suffix-format --prefix --digits", { changes: "contents" })(name, args);
    reading.uses = reading.uses.slice(0, 1); // the rest are patterns
    return reading;
  },
  shuf: reader({ table: SHUF, reads: ["--random-source"], writes: ["o", "--output"], changes: "contents" }),
  look: (name, args) => {
    const reading = reads("-t")(name, args);
    reading.uses = reading.uses.slice(1); // the first operand is the string looked up
    return reading;
  },
  tee: reader({ table: table("", "--output-error"), operands: "write", changes: "contents" }),
  dd: readDd,
  tar: readTar,
  gtar: readTar,
  bsdtar: readTar,
  zip: readZip,
  unzip: readUnzip,
  zcat: reads(),
  bzcat: reads(),
  xzcat: reads(),
  zstdcat: reads(),
  lz4cat: reads(),
  zless: reads(),
  zmore: reads(),
  gzip: compressor("-S --suffix"),
  gunzip: compressor("-S --suffix"),
  bzip2: compressor(""),
  bunzip2: compressor(""),
  xz: compressor("-T -F --threads --format --suffix --memlimit"),
  unxz: compressor("-T --threads"),
  zstd: compressor("-o -T -D --threads"),
  unzstd: compressor("-o -D"),
  lz4: compressor(""),
  cp: copier({
    values: "-S -t --suffix --target-directory --sparse --no-preserve",
    optional: "--backup --reflink --preserve",
    sources: "read",
    recursive: ["r", "R", "a", "--recursive", "--archive"],
    follows: ["L", "--dereference"],
    target: ["t", "--target-directory"],
  }),
  mv: copier({
    values: "-S -t --suffix --target-directory",
    optional: "--backup",
    sources: "any",
    recursive: true,
    follows: [],
    target: ["t", "--target-directory"],
  }),
  install: copier({
    values: "-g -m -o -S -t --group --mode --owner --suffix --target-directory --strip-program",
    optional: "--backup --context",
    sources: "read",
    recursive: [],
    follows: [],
    target: ["t", "--target-directory"],
  }),
  rsync: copier({
    values:
      "-e -f -B -T -M --rsh --filter --exclude --include --exclude-from --include-from --files-from " +
      "--rsync-path --log-file --log-file-format --out-format --partial-dir --temp-dir --compare-dest " +
      "--copy-dest --link-dest --backup-dir --suffix --chmod --chown --usermap --groupmap --timeout " +
      "--contimeout --port --password-file --bwlimit --max-size --min-size --max-delete --block-size " +
      "--checksum-choice --compress-choice --compress-level --skip-compress --modify-window --info --debug " +
      "--stop-after --stop-at --remote-option --iconv --protocol --outbuf --sockopts",
    sources: "read",
    recursive: ["r", "a", "--recursive", "--archive"],
    follows: ["L", "--copy-links", "k", "--copy-dirlinks", "--copy-unsafe-links"],
  }),
  scp: copier({ values: "-c -D -F -i -J -l -o -P -S -X", sources: "read", recursive: ["r"], follows: true }),
  ln: readLn,
  // the lock file is opened (and made); the words after it are the command it starts
  flock: (name, args) => {
    const scan = scanOptions(name, args, 1, WRAPPER_TABLES.flock as OptionTable);
    const lock = scan.operands[0]?.arg;
    if (!lock) return NAMES_ONLY;
    if (!lock.literal) return { uses: [], unknown: unknownFile(name, lock), changes: "contents" };
    return { uses: [{ arg: lock, access: "write" }], unknown: null, changes: "contents" };
  },
  xargs: reader({ table: WRAPPER_TABLES.xargs as OptionTable, reads: ["a", "--arg-file"], operands: "none" }),
  git: readGit,
  date: reader({
    table: table("-d -f -r --date --file --reference --rfc-3339", "-I --iso-8601"),
    reads: ["f", "--file"],
    operands: "none",
  }),
  // they open none of the files they name (names, metadata, text)
  echo: () => NAMES_ONLY,
  printf: () => NAMES_ONLY,
  ls: () => NAMES_ONLY,
  dir: () => NAMES_ONLY,
  tree: () => NAMES_ONLY,
  pwd: () => NAMES_ONLY,
  basename: () => NAMES_ONLY,
  dirname: () => NAMES_ONLY,
  realpath: () => NAMES_ONLY,
  readlink: () => NAMES_ONLY,
  stat: () => NAMES_ONLY,
  du: () => NAMES_ONLY,
  df: () => NAMES_ONLY,
  which: () => NAMES_ONLY,
  whereis: () => NAMES_ONLY,
  test: () => NAMES_ONLY,
  "[": () => NAMES_ONLY,
  true: () => NAMES_ONLY,
  false: () => NAMES_ONLY,
  sleep: () => NAMES_ONLY,
  whoami: () => NAMES_ONLY,
  id: () => NAMES_ONLY,
  uname: () => NAMES_ONLY,
  hostname: () => NAMES_ONLY,
  nproc: () => NAMES_ONLY,
  free: () => NAMES_ONLY,
  uptime: () => NAMES_ONLY,
  printenv: () => NAMES_ONLY,
  tty: () => NAMES_ONLY,
  seq: () => NAMES_ONLY,
  yes: () => NAMES_ONLY,
  expr: () => NAMES_ONLY,
  tr: () => NAMES_ONLY, // its operands are sets of characters: it reads standard input only
  ps: () => NAMES_ONLY,
  pgrep: () => NAMES_ONLY,
  mktemp: () => NAMES_ONLY,
  clear: () => NAMES_ONLY,
  locale: () => NAMES_ONLY,
  getconf: () => NAMES_ONLY,
  numfmt: () => NAMES_ONLY,
  // they change what they name without reading it (an own-folder name still needs a person)
  touch: reads("-d -r -t --date --reference --time", { operands: "write", changes: "contents" }),
  mkdir: reads("-m --mode --context", { operands: "write", changes: "contents" }),
  rmdir: reads("", { operands: "write", changes: "contents" }),
  rm: reader({ table: table("", "--interactive"), operands: "write", changes: "contents" }),
  chmod: reads("--reference", {
    operands: "write",
    changes: "contents",
    program: { unless: ["--reference"] },
  }),
};

for (const tool of ["find", "gfind", "fd", "fdfind", "tree", "du"]) ROWS[tool] ??= () => NAMES_ONLY;

// ---- finders: programs that print the names of files inside folders --------------------------------

const FIND_PLAIN = new Set(["-print", "-print0"]);
const FIND_OUTPUT = /^-(exec|execdir|ok|okdir|printf|fprintf|fprint|fprint0|ls|fls|delete)$/;
const LS_FILES_FLAGS = new Set([
  "-c",
  "--cached",
  "-d",
  "--deleted",
  "-o",
  "--others",
  "-i",
  "--ignored",
  "-m",
  "--modified",
  "-k",
  "--killed",
  "-z",
  "--directory",
  "--no-empty-directory",
  "--exclude-standard",
  "--error-unmatch",
  "--recurse-submodules",
  "--sparse",
  "--",
]);

/**
 * The folders a finder prints the names of files inside (find, fd, rg --files, git ls-files), when it
 * prints nothing but such names (no -printf, -exec or --format), relative to where it runs; else null.
 */
export function finderFolders(name: string, args: readonly Arg[]): Arg[] | null {
  const words = args.slice(1);
  if (words.some((a) => !a.literal)) return null;
  const dot: Arg = { value: ".", literal: true };
  if (name === "find" || name === "gfind") {
    if (words.some((a) => FIND_OUTPUT.test(a.value) && !FIND_PLAIN.has(a.value))) return null;
    return findStartPoints(args);
  }
  if (name === "fd" || name === "fdfind") {
    const fd = knowing(
      table(
        "-e -t -d -E -c -j -S -o --extension --type --max-depth --exclude --color --threads --size --owner " +
          "--changed-within --changed-before --max-results --ignore-file --search-path --format --base-directory",
      ),
      ["x", "X", "l", "--exec", "--exec-batch", "--list-details"],
    );
    const scan = scanOptions(name, args, 1, fd);
    if (
      has(scan, ["x", "X", "l", "--exec", "--exec-batch", "--format", "--base-directory", "--list-details"])
    )
      return null;
    const search = scan.options.filter((o) => o.name === "--search-path").map((o) => o.value as Arg);
    const paths = [...scan.operands.slice(1).map((o) => o.arg), ...search];
    return paths.length > 0 ? paths : [dot];
  }
  if (name === "rg") {
    if (!words.some((a) => a.value === "--files")) return null;
    const scan = scanOptions(name, args, 1, knowing(RG_TABLE, ["--files"]));
    const paths = scan.operands.map((o) => o.arg);
    return paths.length > 0 ? paths : [dot];
  }
  if (name === "git") {
    const at = words.findIndex((a) => !a.value.startsWith("-"));
    if (at !== 0 || words[0]?.value !== "ls-files") return null; // `git -C dir ls-files`: elsewhere
    const rest = words.slice(1);
    const dash = rest.findIndex((a) => a.value === "--");
    const options = dash === -1 ? rest.filter((a) => a.value.startsWith("-")) : rest.slice(0, dash);
    if (!options.every((a) => LS_FILES_FLAGS.has(a.value) || a.value.startsWith("--exclude"))) return null;
    // plain folder pathspecs narrow it; a pattern or magic (`*.ts`, `:(glob)…`) leaves the whole folder
    const specs = (dash === -1 ? rest.filter((a) => !a.value.startsWith("-")) : rest.slice(dash + 1)).map(
      (a) => a.value,
    );
    const plain = specs.length > 0 && specs.every((p) => /^[\w./-]+$/.test(p) && !p.startsWith("-"));
    return plain ? specs.map((value) => ({ value, literal: true })) : [dot];
  }
  return null;
}

/**
 * The files one command line (words as the program receives them) opens, or null when the table does
 * not describe the program: then any of its words may be a file it opens.
 */
export function fileReading(name: string, args: readonly Arg[]): FileReading | null {
  const row = ROWS[name];
  return row ? row(name, args) : null;
}

/** The rows' names (tests: each is known to the table). */
export const FILE_TOOLS: ReadonlySet<string> = new Set(Object.keys(ROWS));
