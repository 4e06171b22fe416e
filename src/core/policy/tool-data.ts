// Tools whose own options, operands or sub-commands run programs or write files (sed's `e` and `w`, tar's
// --checkpoint-action, find -fprint, sort -o, uniq IN OUT, curl -o, ssh -o ProxyCommand…), as option tables
// read by option-scan.ts, plus small readers for the languages some of them take (sed scripts, find
// expressions). Writing a file a tool names is a flag like `> file`; running a program is a flag that an
// entry with an exact argPattern can cover.
import {
  scanOptions,
  HARMLESS_WRITE_TARGETS,
  type Arg,
  type Effect,
  type OptionSpec,
  type OptionTable,
} from "./option-scan.js";
import {
  acts,
  actsOnValue as runs,
  flag as f,
  flagsOf,
  longFlags,
  valued as v,
  writesValue as writes,
} from "./option-specs.js";
import { readSedScript } from "./sed-script.js";
import { LAUNCHER_READERS } from "./tool-launchers.js";
import { WRITER_READERS } from "./tool-writers.js";
import {
  addEffects,
  addProblems,
  emptyReading,
  FILLED_IN_LATER,
  readsAStream,
  readsStdin,
  readByTable,
  type ToolReading,
} from "./tool-readings.js";

type Reader = (name: string, args: readonly Arg[], stdin?: string | null) => ToolReading;

/** A tool read by its option table alone (its operands are data). */
function byTable(table: OptionTable): Reader {
  return (name, args) => readByTable(name, args, table).reading;
}

/** A tool whose sub-command (first operand) decides; `rules` says which sub-commands need a person. */
function bySubcommand(
  table: OptionTable,
  rules: Record<string, Effect | ((args: readonly Arg[], at: number) => Effect | null)>,
): Reader {
  return (name, args) => {
    const { reading, scan } = readByTable(name, args, table);
    const sub = scan.operands[0];
    if (!sub) return reading;
    if (!sub.arg.literal) {
      addProblems(reading, [`the ${name} sub-command ${sub.arg.value} is known only when it runs`]);
      return reading;
    }
    const rule = rules[sub.arg.value];
    const effect = typeof rule === "function" ? rule(args, sub.index) : rule;
    if (effect) addEffects(reading, [effect]);
    return reading;
  };
}

function laterWords(args: readonly Arg[], at: number): string[] {
  return args.slice(at + 1).map((a) => (a.literal ? a.value : "…"));
}

// ---- sed ----------------------------------------------------------------------------------------

export const SED_TABLE: OptionTable = {
  short: {
    ...flagsOf("nEsurzb"),
    e: v,
    f: v,
    l: v,
    i: { value: "optional", effect: { kind: "tool-option", detail: "sed -i edits files in place" } },
  },
  long: {
    ...longFlags([
      "--quiet",
      "--silent",
      "--regexp-extended",
      "--separate",
      "--unbuffered",
      "--null-data",
      "--posix",
      "--debug",
      "--sandbox",
      "--follow-symlinks",
      "--help",
      "--version",
      "--binary",
    ]),
    "--expression": v,
    "--file": v,
    "--line-length": v,
    "--in-place": {
      value: "optional",
      effect: { kind: "tool-option", detail: "sed -i edits files in place" },
    },
  },
  permute: true,
  other: "prompt",
};

function readSed(name: string, args: readonly Arg[], stdin: string | null = null): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, SED_TABLE);
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  const scripts = scan.options.filter((o) => o.name === "e" || o.name === "--expression").map((o) => o.value);
  const files = scan.options.filter((o) => o.name === "f" || o.name === "--file").map((o) => o.value);
  if (scripts.length === 0 && files.length === 0) scripts.push(scan.operands[0]?.arg);
  for (const file of files) {
    if (file && readsStdin(file) && stdin !== null) {
      scripts.push({ value: stdin, literal: true }); // the script is in a here-document
    } else if (!file || readsAStream(file)) {
      reading.flags.push({
        kind: "dynamic-command",
        detail: `${name} reads its script from ${file?.value ?? "nowhere"}, which cannot be analysed`,
      });
      reading.unknowable = true;
    }
  }
  for (const script of scripts) {
    if (!script) continue;
    if (!script.literal) {
      addProblems(reading, [`the ${name} script ${script.value} is known only when it runs`]);
      continue;
    }
    const verdict = readSedScript(script.value);
    if (!verdict.ok) addProblems(reading, [verdict.why]);
    else
      addEffects(
        reading,
        verdict.effects.map((detail) => ({ kind: "tool-option" as const, detail })),
      );
  }
  return reading;
}

// ---- find ---------------------------------------------------------------------------------------

const FIND_TAKES_VALUE = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-size",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-perm",
  "-links",
  "-inum",
  "-samefile",
  "-maxdepth",
  "-mindepth",
  "-printf",
  "-wholename",
  "-iwholename",
  "-lname",
  "-ilname",
  "-fstype",
  "-context",
  "-used",
  "-regextype",
  "-files0-from",
]);
const FIND_FLAGS = new Set([
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-true",
  "-false",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-follow",
  "-warn",
  "-nowarn",
  "-a",
  "-and",
  "-o",
  "-or",
  "-not",
  "!",
  "(",
  ")",
  ",",
  "-help",
  "--help",
  "-version",
  "--version",
]);
const FIND_WRITES = new Set(["-fprint", "-fprint0", "-fls"]);

/** find's starting points: the words before its expression ("." when there are none). */
export function findStartPoints(args: readonly Arg[]): Arg[] {
  const starts: Arg[] = [];
  for (let i = 1; i < args.length; i++) {
    const a = args[i] as Arg;
    if (a.literal && (/^-[HLP]$/.test(a.value) || /^-O\d$/.test(a.value))) continue;
    if (a.literal && a.value === "-D") {
      i++;
      continue;
    }
    if (a.literal && (a.value.startsWith("-") || a.value === "(" || a.value === "!")) break;
    starts.push(a);
  }
  return starts.length > 0 ? starts : [{ value: ".", literal: true }];
}

function readFind(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  // `-exec cat {} +`: the files it found under its starting points (the read rule reads those folders)
  const found: Arg = { ...FILLED_IN_LATER, found: { folders: findStartPoints(args) } };
  let i = 1;
  // leading options, then the starting points (words that do not start an expression)
  for (; i < args.length; i++) {
    const a = args[i] as Arg;
    if (!a.literal) {
      if (a.splits || a.mayBeOption)
        addProblems(reading, [`${a.value} is known only when it runs, where find reads its expression`]);
      continue;
    }
    if (/^-[HLP]$/.test(a.value) || /^-O\d$/.test(a.value)) continue;
    if (a.value === "-D") {
      i++;
      continue;
    }
    if (a.value.startsWith("-") || a.value === "(" || a.value === "!") break;
  }
  for (; i < args.length; i++) {
    const a = args[i] as Arg;
    if (!a.literal) {
      addProblems(reading, [`${a.value} is known only when it runs, where find reads its expression`]);
      continue;
    }
    const w = a.value;
    if (FIND_FLAGS.has(w)) continue;
    if (FIND_TAKES_VALUE.has(w) || /^-newer[amcBt][amcBt]$/.test(w)) {
      i++;
      continue;
    }
    if (w === "-delete") {
      addEffects(reading, [{ kind: "tool-option", detail: "find -delete deletes the files it finds" }]);
      continue;
    }
    if (FIND_WRITES.has(w) || w === "-fprintf") {
      const target = args[i + 1];
      i += w === "-fprintf" ? 2 : 1;
      if (!target?.literal || !HARMLESS_WRITE_TARGETS.has(target.value))
        reading.flags.push({ kind: "redirect", detail: `find ${w} writes to ${target?.value ?? "a file"}` });
      continue;
    }
    if (["-exec", "-execdir", "-ok", "-okdir"].includes(w)) {
      const start = i + 1;
      let end = start;
      while (
        end < args.length &&
        !((args[end] as Arg).literal && [";", "+"].includes((args[end] as Arg).value))
      )
        end++;
      const command = args
        .slice(start, end)
        .map((c) =>
          c.literal && c.value === "{}" ? found : c.literal && c.value.includes("{}") ? FILLED_IN_LATER : c,
        );
      if (command.length > 0) reading.inner.push({ args: command, context: `find ${w}` });
      i = end;
      continue;
    }
    addProblems(reading, [`find ${w} is not a part of an expression Gatehouse knows`]);
  }
  return reading;
}

// ---- tar ----------------------------------------------------------------------------------------

export const TAR_MODES: Record<string, "writes" | "extracts" | "reads"> = {
  c: "writes",
  r: "writes",
  u: "writes",
  A: "writes",
  x: "extracts",
  t: "reads",
  d: "reads",
  "--create": "writes",
  "--append": "writes",
  "--update": "writes",
  "--catenate": "writes",
  "--concatenate": "writes",
  "--delete": "writes",
  "--extract": "extracts",
  "--get": "extracts",
  "--list": "reads",
  "--diff": "reads",
  "--compare": "reads",
};

export const TAR_TABLE: OptionTable = {
  short: {
    ...flagsOf("crtuxdAzjJavpPhkmOSWwiBGlMUZ"),
    f: v,
    C: v,
    T: v,
    X: v,
    b: v,
    H: v,
    L: v,
    N: v,
    V: v,
    K: v,
    g: writes("tar -g writes the snapshot file {}"),
    I: runs("tar -I runs {} to compress"),
    F: runs("tar -F runs the script {} at the end of each volume"),
  },
  long: {
    ...longFlags([
      "--create",
      "--append",
      "--update",
      "--catenate",
      "--concatenate",
      "--delete",
      "--extract",
      "--get",
      "--list",
      "--diff",
      "--compare",
      "--gzip",
      "--gunzip",
      "--ungzip",
      "--bzip2",
      "--xz",
      "--lzip",
      "--lzma",
      "--lzop",
      "--zstd",
      "--auto-compress",
      "--no-auto-compress",
      "--verbose",
      "--preserve-permissions",
      "--same-permissions",
      "--absolute-names",
      "--dereference",
      "--hard-dereference",
      "--keep-old-files",
      "--skip-old-files",
      "--keep-newer-files",
      "--overwrite",
      "--overwrite-dir",
      "--no-overwrite-dir",
      "--to-stdout",
      "--touch",
      "--sparse",
      "--verify",
      "--interactive",
      "--confirmation",
      "--ignore-zeros",
      "--multi-volume",
      "--unlink-first",
      "--recursive-unlink",
      "--no-same-owner",
      "--same-owner",
      "--numeric-owner",
      "--no-same-permissions",
      "--totals",
      "--wildcards",
      "--no-wildcards",
      "--anchored",
      "--no-anchored",
      "--ignore-case",
      "--no-ignore-case",
      "--wildcards-match-slash",
      "--no-wildcards-match-slash",
      "--null",
      "--no-null",
      "--verbatim-files-from",
      "--no-verbatim-files-from",
      "--recursion",
      "--no-recursion",
      "--one-file-system",
      "--ignore-failed-read",
      "--exclude-vcs",
      "--exclude-vcs-ignores",
      "--exclude-caches",
      "--exclude-caches-under",
      "--exclude-caches-all",
      "--exclude-backups",
      "--force-local",
      "--show-transformed-names",
      "--show-stored-names",
      "--delay-directory-restore",
      "--no-delay-directory-restore",
      "--keep-directory-symlink",
      "--atime-preserve",
      "--utc",
      "--full-time",
      "--block-number",
      "--acls",
      "--no-acls",
      "--xattrs",
      "--no-xattrs",
      "--selinux",
      "--no-selinux",
      "--check-links",
      "--seek",
      "--no-seek",
      "--preserve-order",
      "--same-order",
      "--restrict",
      "--no-unquote",
      "--unquote",
      "--show-defaults",
      "--show-omitted-dirs",
      "--checkpoint",
      "--help",
      "--usage",
      "--version",
    ]),
    ...Object.fromEntries(
      [
        "--file",
        "--directory",
        "--files-from",
        "--exclude-from",
        "--exclude",
        "--exclude-tag",
        "--exclude-tag-under",
        "--exclude-tag-all",
        "--strip-components",
        "--transform",
        "--xform",
        "--owner",
        "--group",
        "--mode",
        "--mtime",
        "--sort",
        "--format",
        "--newer",
        "--after-date",
        "--newer-mtime",
        "--blocking-factor",
        "--record-size",
        "--tape-length",
        "--label",
        "--warning",
        "--occurrence",
        "--quoting-style",
        "--quote-chars",
        "--no-quote-chars",
        "--owner-map",
        "--group-map",
        "--add-file",
        "--pax-option",
        "--hole-detection",
        "--sparse-version",
        "--starting-file",
        "--suffix",
        "--backup",
        "--level",
        "--clamp-mtime",
        "--atime-preserve",
      ].map((o) => [o, v]),
    ),
    "--checkpoint-action": runs("tar --checkpoint-action {} can run a program"),
    "--to-command": runs("tar --to-command runs {} for every file"),
    "--use-compress-program": runs("tar --use-compress-program runs {}"),
    "--info-script": runs("tar --info-script runs {}"),
    "--new-volume-script": runs("tar --new-volume-script runs {}"),
    "--rsh-command": runs("tar --rsh-command runs {}"),
    "--rmt-command": runs("tar --rmt-command runs {}"),
    "--index-file": writes("tar --index-file writes to {}"),
    "--listed-incremental": writes("tar --listed-incremental writes the snapshot file {}"),
    "--volno-file": writes("tar --volno-file writes to {}"),
    "--remove-files": acts("tar --remove-files deletes the files it archives"),
  },
  permute: true,
  other: "prompt",
};

function readTar(name: string, args: readonly Arg[]): ToolReading {
  // old style: `tar czf out.tar dir` — the first word is a bundle of letters whose values follow in order
  let words = [...args];
  const first = args[1];
  if (first?.literal && /^[A-Za-z]+$/.test(first.value)) {
    const letters = [...first.value];
    const rebuilt: Arg[] = [args[0] as Arg];
    let next = 2;
    for (const letter of letters) {
      rebuilt.push({ value: `-${letter}`, literal: true });
      if (TAR_TABLE.short?.[letter]?.value === true) {
        const value = args[next++];
        if (value) rebuilt.push(value);
      }
    }
    words = [...rebuilt, ...args.slice(next)];
  }
  const reading = emptyReading();
  const scan = scanOptions(name, words, 1, TAR_TABLE);
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  const names = new Set(scan.options.map((o) => o.name));
  const mode = [...names].map((n) => TAR_MODES[n]).find((m) => m !== undefined);
  const file = scan.options.find((o) => o.name === "f" || o.name === "--file")?.value;
  if (file && (!file.literal || /^[^/]*:/.test(file.value)) && !names.has("--force-local")) {
    // `host:path` makes tar run a remote shell
    if (!file.literal || !HARMLESS_WRITE_TARGETS.has(file.value))
      addEffects(reading, [
        {
          kind: "tool-option",
          detail: `tar -f ${file.value} may name a remote archive, which runs a remote shell`,
        },
      ]);
  }
  const toStdout = names.has("O") || names.has("--to-stdout");
  if (mode === "writes" && !(file?.literal && HARMLESS_WRITE_TARGETS.has(file.value)))
    addEffects(reading, [
      {
        kind: "tool-option",
        detail: `tar writes the archive ${file?.value ?? "(on standard output or a tape)"}`,
      },
    ]);
  if (mode === "extracts" && !toStdout)
    addEffects(reading, [{ kind: "tool-option", detail: "tar extracts files" }]);
  return reading;
}

// ---- coreutils and other text tools -------------------------------------------------------------

export const SORT_TABLE: OptionTable = {
  short: { ...flagsOf("bdfgihMnRrVcCmsuz"), k: v, t: v, S: v, T: v, o: writes("sort -o writes to {}") },
  long: {
    ...longFlags([
      "--ignore-leading-blanks",
      "--dictionary-order",
      "--ignore-case",
      "--general-numeric-sort",
      "--ignore-nonprinting",
      "--month-sort",
      "--human-numeric-sort",
      "--numeric-sort",
      "--random-sort",
      "--reverse",
      "--version-sort",
      "--merge",
      "--stable",
      "--unique",
      "--zero-terminated",
      "--debug",
      "--help",
      "--version",
    ]),
    ...Object.fromEntries(
      [
        "--key",
        "--field-separator",
        "--buffer-size",
        "--temporary-directory",
        "--parallel",
        "--batch-size",
        "--random-source",
        "--files0-from",
        "--sort",
      ].map((o) => [o, v]),
    ),
    "--check": { value: "optional" },
    "--output": writes("sort -o writes to {}"),
    "--compress-program": runs("sort --compress-program runs {}"),
  },
  permute: true,
  other: "prompt",
};

function readUniq(name: string, args: readonly Arg[]): ToolReading {
  const reading = byTable({
    short: { ...flagsOf("cdDiuz"), f: v, s: v, w: v },
    long: {
      ...longFlags([
        "--count",
        "--repeated",
        "--ignore-case",
        "--unique",
        "--zero-terminated",
        "--help",
        "--version",
      ]),
      "--all-repeated": { value: "optional" },
      "--group": { value: "optional" },
      "--skip-fields": v,
      "--skip-chars": v,
      "--check-chars": v,
    },
    permute: true,
    other: "prompt",
  })(name, args);
  const scan = scanOptions(name, args, 1, { permute: true, other: "inert", short: { f: v, s: v, w: v } });
  const output = scan.operands[1]?.arg;
  if (output && !(output.literal && HARMLESS_WRITE_TARGETS.has(output.value)))
    reading.flags.push({ kind: "redirect", detail: `uniq writes to ${output.value}` });
  return reading;
}

function readTee(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, {
    short: flagsOf("aip"),
    long: {
      "--append": f,
      "--ignore-interrupts": f,
      "--output-error": { value: "optional" },
      "--help": f,
      "--version": f,
    },
    permute: true,
    other: "prompt",
  });
  addProblems(reading, scan.problems);
  for (const { arg } of scan.operands) {
    if (!(arg.literal && HARMLESS_WRITE_TARGETS.has(arg.value)))
      reading.flags.push({ kind: "redirect", detail: `tee writes to ${arg.value}` });
  }
  return reading;
}

function readDd(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  for (const arg of args.slice(1)) {
    const m = arg.literal ? /^([a-z]+)=(.*)$/s.exec(arg.value) : null;
    if (!m) {
      addProblems(reading, [`dd operand ${arg.value} is not one Gatehouse knows`]);
      continue;
    }
    const [, key, value] = m as unknown as [string, string, string];
    if (key === "of" && !HARMLESS_WRITE_TARGETS.has(value))
      reading.flags.push({ kind: "redirect", detail: `dd writes to ${value}` });
    else if (
      ![
        "if",
        "bs",
        "ibs",
        "obs",
        "cbs",
        "count",
        "skip",
        "seek",
        "iseek",
        "oseek",
        "conv",
        "iflag",
        "oflag",
        "status",
      ].includes(key)
    )
      addProblems(reading, [`dd operand ${key}= is not one Gatehouse knows`]);
  }
  return reading;
}

function readMake(name: string, args: readonly Arg[], stdin: string | null = null): ToolReading {
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, {
    short: {
      ...flagsOf("bBdeiknpqrRsStvwh"),
      C: v,
      f: v,
      I: v,
      j: { value: "optional" },
      l: { value: "optional" },
      o: v,
      W: v,
      O: { value: "optional" },
      E: runs("make -E evaluates {} as makefile text"),
    },
    long: {
      "--eval": runs("make --eval evaluates {} as makefile text"),
      "--file": v,
      "--makefile": v,
      "--directory": v,
      "--include-dir": v,
      "--jobs": { value: "optional" },
      "--load-average": { value: "optional" },
      "--old-file": v,
      "--assume-old": v,
      "--new-file": v,
      "--what-if": v,
      "--assume-new": v,
      "--output-sync": { value: "optional" },
      "--debug": { value: "optional" },
      "--shuffle": { value: "optional" },
    },
    permute: true,
    other: "inert",
  });
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  // a makefile read from standard input is written in the command (inline) or unseen (a pipe)
  for (const file of scan.options.filter((o) => ["f", "--file", "--makefile"].includes(o.name))) {
    if (!file.value || !readsAStream(file.value)) continue;
    if (readsStdin(file.value) && stdin !== null) {
      addEffects(reading, [{ kind: "inline-code", detail: "make runs the makefile in its here-document" }]);
    } else {
      reading.flags.push({
        kind: "dynamic-command",
        detail: `make reads its makefile from ${file.value.value}, which cannot be analysed`,
      });
      reading.unknowable = true;
    }
  }
  for (const { arg } of scan.operands) {
    const m = arg.literal ? /^([^=:+?!\s]+)\s*[:+?!]?=/.exec(arg.value) : null;
    if (m)
      addEffects(reading, [
        {
          kind: "tool-option",
          detail: `make sets ${m[1]} on its command line, which can change the commands it runs`,
        },
      ]);
  }
  return reading;
}

// ---- package managers and build tools -----------------------------------------------------------

const npmConfig = (args: readonly Arg[], at: number): Effect | null => {
  const action = laterWords(args, at)[0];
  return action === "get" || action === "list" || action === "ls" || action === undefined
    ? null
    : {
        kind: "tool-option",
        detail: `npm config ${action} changes settings that decide what npm runs (script-shell, node-options…)`,
      };
};
const NPM_TABLE: OptionTable = {
  long: {
    "--script-shell": runs("npm --script-shell makes npm run scripts with {}"),
    "--node-options": runs("npm --node-options passes {} to every node it starts"),
    "--userconfig": runs("npm --userconfig reads settings from {}"),
    "--globalconfig": runs("npm --globalconfig reads settings from {}"),
    "--call": runs("npm exec --call runs the shell command {}"),
    "--prefix": v,
    "--workspace": v,
    "-w": v,
  },
  short: { c: runs("npm exec -c runs the shell command {}"), w: v },
  permute: true,
  other: "inert",
};

const PIP_TABLE: OptionTable = {
  long: { "--config-file": runs("pip reads settings from {}") },
  permute: true,
  other: "inert",
};

const READERS: Record<string, Reader> = {
  ...WRITER_READERS,
  ...LAUNCHER_READERS,
  sed: readSed,
  gsed: readSed,
  find: readFind,
  gfind: readFind,
  tar: readTar,
  gtar: readTar,
  bsdtar: readTar,
  sort: byTable(SORT_TABLE),
  uniq: readUniq,
  tee: readTee,
  dd: readDd,
  make: readMake,
  gmake: readMake,
  rg: byTable({
    long: {
      "--pre": runs("rg --pre runs {} on every file it searches"),
      "--hostname-bin": runs("rg --hostname-bin runs {}"),
      "--pre-glob": v,
    },
    permute: true,
    other: "inert",
  }),
  fd: (name, args) => {
    const reading = emptyReading();
    const scan = scanOptions(name, args, 1, {
      short: { x: f, X: f, e: v, t: v, d: v, E: v, c: v, j: v, S: v, o: v },
      long: { "--exec": f, "--exec-batch": f },
      permute: true,
      other: "inert",
    });
    addProblems(reading, scan.problems);
    const exec = scan.options.find((o) => ["x", "X", "--exec", "--exec-batch"].includes(o.name));
    if (exec) {
      const command = args.slice(exec.index + 1);
      const end = command.findIndex((a) => a.literal && a.value === ";");
      const inner = (end === -1 ? command : command.slice(0, end)).map((a) =>
        a.literal && /\{[/.}]?/.test(a.value) ? FILLED_IN_LATER : a,
      );
      reading.inner.push({ args: inner.length ? inner : [FILLED_IN_LATER], context: `fd ${exec.name}` });
    }
    return reading;
  },
  npm: bySubcommand(NPM_TABLE, {
    config: npmConfig,
    c: npmConfig,
    set: { kind: "tool-option", detail: "npm set changes settings that decide what npm runs" },
    edit: { kind: "tool-option", detail: "npm edit runs an editor" },
    exec: { kind: "tool-option", detail: "npm exec runs a package's program, which is not analysed" },
    x: { kind: "tool-option", detail: "npm exec runs a package's program, which is not analysed" },
  }),
  npx: byTable({ ...NPM_TABLE, short: { c: runs("npx -c runs the shell command {}"), p: v } }),
  pnpm: bySubcommand(NPM_TABLE, {
    config: npmConfig,
    dlx: { kind: "tool-option", detail: "pnpm dlx downloads and runs a package's program" },
    exec: { kind: "tool-option", detail: "pnpm exec runs a program, which is not analysed" },
  }),
  yarn: bySubcommand(NPM_TABLE, {
    config: (args, at) =>
      laterWords(args, at)[0] === "set"
        ? { kind: "tool-option", detail: "yarn config set changes what yarn runs" }
        : null,
    dlx: { kind: "tool-option", detail: "yarn dlx downloads and runs a package's program" },
    exec: { kind: "tool-option", detail: "yarn exec runs a program, which is not analysed" },
  }),
  bun: bySubcommand(
    {
      short: { e: runs("bun -e runs inline code"), p: runs("bun -p runs inline code") },
      long: {
        "--eval": runs("bun --eval runs inline code"),
        "--print": runs("bun --print runs inline code"),
      },
      permute: true,
      other: "inert",
    },
    {
      x: { kind: "tool-option", detail: "bun x runs a package's program" },
      exec: { kind: "tool-option", detail: "bun exec runs a shell command" },
    },
  ),
  cargo: byTable({
    long: {
      "--config": runs("cargo --config {} can set the programs cargo runs (runners, wrappers, linkers)"),
    },
    short: { Z: v },
    permute: true,
    other: "inert",
  }),
  go: bySubcommand(
    {
      long: { "-toolexec": runs("go -toolexec runs {}"), "-exec": runs("go -exec runs {}") },
      singleDashLong: true,
      permute: true,
      other: "inert",
    },
    {
      env: (args, at) =>
        laterWords(args, at).includes("-w")
          ? { kind: "tool-option", detail: "go env -w changes settings that decide what go runs" }
          : null,
    },
  ),
  pip: bySubcommand(PIP_TABLE, {
    config: (args, at) =>
      ["set", "edit", "unset"].includes(laterWords(args, at)[0] ?? "")
        ? { kind: "tool-option", detail: "pip config changes where pip installs from" }
        : null,
  }),
  curl: byTable({
    short: {
      o: writes("curl -o writes to {}"),
      O: acts("curl -O writes the download to a file"),
      D: writes("curl -D writes headers to {}"),
      c: writes("curl -c writes cookies to {}"),
      K: runs("curl -K reads options (outputs among them) from {}"),
      T: runs("curl -T uploads the file {}"),
    },
    long: {
      "--output": writes("curl --output writes to {}"),
      "--remote-name": acts("curl --remote-name writes the download to a file"),
      "--remote-name-all": acts("curl --remote-name-all writes downloads to files"),
      "--output-dir": writes("curl --output-dir writes into {}"),
      "--dump-header": writes("curl --dump-header writes to {}"),
      "--cookie-jar": writes("curl --cookie-jar writes to {}"),
      "--trace": writes("curl --trace writes to {}"),
      "--trace-ascii": writes("curl --trace-ascii writes to {}"),
      "--stderr": writes("curl --stderr writes to {}"),
      "--libcurl": writes("curl --libcurl writes to {}"),
      "--etag-save": writes("curl --etag-save writes to {}"),
      "--hsts": writes("curl --hsts writes to {}"),
      "--alt-svc": writes("curl --alt-svc writes to {}"),
      "--config": runs("curl --config reads options (outputs among them) from {}"),
      "--upload-file": runs("curl --upload-file uploads the file {}"),
    },
    permute: true,
    other: "inert",
  }),
  wget: byTable({
    short: {
      O: writes("wget -O writes to {}"),
      o: writes("wget -o writes its log to {}"),
      a: writes("wget -a writes its log to {}"),
      P: writes("wget -P writes into {}"),
      e: runs("wget -e runs the wgetrc command {}"),
      i: v,
    },
    long: {
      "--output-document": writes("wget --output-document writes to {}"),
      "--output-file": writes("wget --output-file writes to {}"),
      "--append-output": writes("wget --append-output writes to {}"),
      "--directory-prefix": writes("wget --directory-prefix writes into {}"),
      "--execute": runs("wget --execute runs the wgetrc command {}"),
      "--use-askpass": runs("wget --use-askpass runs {}"),
      "--config": runs("wget --config reads commands from {}"),
    },
    permute: true,
    other: "inert",
  }),
  ssh: (name, args) => readSshFamily(name, args, "ssh"),
  scp: (name, args) => readSshFamily(name, args, "scp"),
  sftp: (name, args) => readSshFamily(name, args, "sftp"),
  rsync: (name, args) => {
    const reading = byTable({
      short: { e: v, f: v },
      long: {
        "--rsh": v,
        "--log-file": writes("rsync --log-file writes to {}"),
        "--filter": v,
        "--rsync-path": v,
      },
      permute: true,
      other: "inert",
    })(name, args);
    const scan = scanOptions(name, args, 1, {
      short: { e: v, f: v },
      long: { "--rsh": v },
      permute: true,
      other: "inert",
    });
    for (const o of scan.options.filter((o) => o.name === "e" || o.name === "--rsh")) {
      if (!o.value?.literal || !/^ssh( -[pl] ?[\w.-]+)*$/.test(o.value.value))
        addEffects(reading, [
          { kind: "tool-option", detail: `rsync -e runs ${o.value?.value ?? "a program"} to connect` },
        ]);
    }
    return reading;
  },
  zip: byTable({
    long: { "--unzip-command": runs("zip --unzip-command runs {}"), "-TT": runs("zip -TT runs {}") },
    singleDashLong: true,
    permute: true,
    other: "inert",
  }),
  man: byTable({
    short: {
      P: runs("man -P runs the pager {}"),
      H: { value: "optional", effect: { kind: "tool-option", detail: "man -H runs a browser" } },
    },
    long: {
      "--pager": runs("man --pager runs {}"),
      "--html": { value: "optional", effect: { kind: "tool-option", detail: "man --html runs a browser" } },
    },
    permute: true,
    other: "inert",
  }),
  gdb: byTable({
    long: {
      "-ex": runs("gdb -ex runs the command {}"),
      "-iex": runs("gdb -iex runs the command {}"),
      "-eval-command": runs("gdb -eval-command runs the command {}"),
      "-x": runs("gdb -x runs the commands in {}"),
      "-ix": runs("gdb -ix runs the commands in {}"),
      "-command": runs("gdb -command runs the commands in {}"),
    },
    singleDashLong: true,
    short: { x: runs("gdb -x runs the commands in {}") },
    permute: true,
    other: "inert",
  }),
  psql: byTable({
    short: {
      c: runs("psql -c runs {} (\\! runs shell commands)"),
      o: writes("psql -o writes to {}"),
      L: writes("psql -L writes to {}"),
    },
    long: {
      "--command": runs("psql --command runs {}"),
      "--output": writes("psql --output writes to {}"),
      "--log-file": writes("psql --log-file writes to {}"),
    },
    permute: true,
    other: "inert",
  }),
  mysql: byTable({
    short: { e: runs("mysql -e runs {} (system runs shell commands)") },
    long: {
      "--execute": runs("mysql --execute runs {}"),
      "--init-command": runs("mysql --init-command runs {}"),
      "--tee": writes("mysql --tee writes to {}"),
    },
    permute: true,
    other: "inert",
  }),
  crontab: (name, args) => {
    const reading = emptyReading();
    const listing = args.slice(1).every((a) => a.literal && ["-l", "-u"].includes(a.value));
    if (!listing || args.length === 1)
      addEffects(reading, [
        { kind: "tool-option", detail: "crontab installs commands that run later, unseen" },
      ]);
    return reading;
  },
  at: (_name, args) => {
    const reading = emptyReading();
    if (!args.slice(1).some((a) => a.literal && ["-l", "-c", "-r", "-d"].includes(a.value))) {
      reading.flags.push({ kind: "dynamic-command", detail: "at runs commands read from its input later" });
      reading.unknowable = true;
    }
    return reading;
  },
  batch: (_name) => ({
    ...emptyReading(),
    flags: [{ kind: "dynamic-command", detail: "batch runs commands read from its input later" }],
    unknowable: true,
  }),
  parallel: (_name) => ({
    ...emptyReading(),
    flags: [{ kind: "dynamic-command", detail: "parallel runs commands built from its input" }],
    unknowable: true,
  }),
  script: byTable({
    short: {
      c: runs("script -c runs the shell command {}"),
      ...flagsOf("aefqEk"),
      t: { value: "optional" },
      O: v,
      I: v,
      B: v,
      T: v,
      m: v,
    },
    long: { "--command": runs("script --command runs {}") },
    permute: true,
    other: "prompt",
  }),
  deno: bySubcommand(
    { permute: false, other: "inert" },
    {
      eval: { kind: "inline-code", detail: "deno eval runs inline code" },
      repl: { kind: "dynamic-command", detail: "deno repl reads code from standard input" },
    },
  ),
};

/** vi, vim, nvim and friends: `-c`, `+cmd`, `--cmd`, `-S`, `-u` run editor commands. */
for (const editor of ["vi", "vim", "nvim", "ex", "view", "vimdiff", "gvim", "rvim"]) {
  READERS[editor] = (name, args) => {
    const reading = byTable({
      short: {
        c: runs(`${editor} -c runs the editor command {}`),
        S: runs(`${editor} -S runs {}`),
        u: runs(`${editor} -u reads {} as its configuration`),
        s: runs(`${editor} -s reads commands from {}`),
        W: writes(`${editor} -W writes to {}`),
        w: writes(`${editor} -w writes to {}`),
        T: v,
        i: v,
        t: v,
        q: v,
      },
      long: { "--cmd": runs(`${editor} --cmd runs the editor command {}`) },
      permute: true,
      other: "inert",
    })(name, args);
    if (args.some((a, i) => i > 0 && (!a.literal || a.value.startsWith("+"))))
      addEffects(reading, [{ kind: "tool-option", detail: `${editor} +command runs an editor command` }]);
    return reading;
  };
}
READERS.emacs = byTable({
  long: {
    "--eval": runs("emacs --eval runs {}"),
    "--load": runs("emacs --load runs {}"),
    "--funcall": runs("emacs --funcall runs {}"),
    "--script": runs("emacs --script runs {}"),
    "-l": runs("emacs -l runs {}"),
    "-f": runs("emacs -f runs {}"),
  },
  singleDashLong: true,
  short: { l: runs("emacs -l runs {}"), f: runs("emacs -f runs {}") },
  permute: true,
  other: "inert",
});

function readSshFamily(name: string, args: readonly Arg[], which: "ssh" | "scp" | "sftp"): ToolReading {
  const valued =
    which === "ssh" ? "BbcDEeFIiJLlmOoPpQRSWw" : which === "scp" ? "cDFiJloPSX" : "BbcDFiJloPRSsX";
  const short: Record<string, OptionSpec> = Object.fromEntries([...valued].map((l) => [l, v]));
  short.F = runs(`${which} -F reads settings (ProxyCommand, LocalCommand…) from {}`);
  short.E = writes(`${which} -E writes its log to {}`);
  if (which !== "ssh") short.S = runs(`${which} -S runs {} to connect`);
  if (which === "sftp") short.b = runs("sftp -b runs the commands in {} (! runs local shell commands)");
  const reading = emptyReading();
  const scan = scanOptions(name, args, 1, { short, other: "inert" });
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  for (const o of scan.options.filter((o) => o.name === "o")) {
    const option = o.value?.literal ? o.value.value : "";
    if (
      !o.value?.literal ||
      /^\s*(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|ProxyUseFdpass|Match|Include|SecurityKeyProvider|PKCS11Provider|SetEnv|SendEnv)\b/i.test(
        option,
      )
    )
      addEffects(reading, [
        {
          kind: "tool-option",
          detail: `${which} -o ${o.value?.value ?? ""} can make ${which} run a program`,
        },
      ]);
  }
  return reading;
}

export const DATA_TOOLS = new Set(Object.keys(READERS));

export function readDataTool(name: string, args: readonly Arg[], stdin: string | null = null): ToolReading {
  const reader = READERS[name];
  return reader ? reader(name, args, stdin) : emptyReading();
}
