// Tools people allow as readers that can also write a file or change the machine by an option or an
// operand: shuf -o, sdiff -o, xxd's second file, yq -i, less -o, date -s (or a date operand), hostname
// NAME, openssl -out or -engine. Found by running attacks with the tool on the allowlist
// (docs/decisions.md "Exec policy and the approvals file", the tool table). As elsewhere in the table,
// writing a file by an option, changing a setting or running a program is a tool option an entry with an
// exact argPattern can cover; a file operand written is a redirect. An option a table does not list
// needs a person, except for less and openssl, whose many other options are inert around the few that
// act, and yq, whose two implementations share no option set.
import { HARMLESS_WRITE_TARGETS, type Arg, type OptionTable } from "./option-scan.js";
import { actsOnValue, longFlags, valued as v, valuesOf, writesValue as writes } from "./option-specs.js";
import {
  addEffects,
  addProblems,
  emptyReading,
  FILLED_IN_LATER,
  readByTable,
  type ToolReading,
} from "./tool-readings.js";

/** Flags and valued options from space-separated names (`-x` letters and `--long` names alike). */
const flags = (names: string) => longFlags(names.split(" "));
const values = (names: string) => valuesOf(names.split(" "));

function read(name: string, args: readonly Arg[], table: OptionTable) {
  const { reading, scan } = readByTable(name, args, table);
  return { reading, operands: scan.operands.map((o) => o.arg) };
}

/** An operand the tool writes to: a flag like `> file`, unless it is /dev/null & co. */
function writesTo(reading: ToolReading, tool: string, arg: Arg | undefined): void {
  if (arg && !(arg.literal && HARMLESS_WRITE_TARGETS.has(arg.value)))
    reading.flags.push({ kind: "redirect", detail: `${tool} writes to ${arg.value}` });
}

/** A word known only at run time where a tool reads options could be any option (as option-scan.ts says). */
function unknownWord(reading: ToolReading, tool: string, arg: Arg): void {
  if (arg.mayBeOption || arg.splits)
    addProblems(reading, [`${arg.value} is known only when it runs, where ${tool} reads options`]);
}

export const SHUF: OptionTable = {
  short: { ...flags("e r z"), i: v, n: v, o: writes("shuf -o writes to {}") },
  long: {
    ...flags("--echo --repeat --zero-terminated --help --version"),
    ...values("--input-range --head-count --random-source"),
    "--output": writes("shuf -o writes to {}"),
  },
  permute: true,
  other: "prompt",
};

export const SDIFF: OptionTable = {
  short: { ...flags("a b B d E H i l s t v W Z"), I: v, w: v, o: writes("sdiff -o writes to {}") },
  long: {
    ...flags(
      "--text --ignore-space-change --ignore-blank-lines --minimal --ignore-tab-expansion --speed-large-files " +
        "--ignore-case --left-column --suppress-common-lines --expand-tabs --ignore-all-space " +
        "--ignore-trailing-space --strip-trailing-cr --help --version",
    ),
    ...values("--ignore-matching-lines --tabsize --width"),
    "--output": writes("sdiff -o writes to {}"),
    "--diff-program": actsOnValue("sdiff --diff-program runs {}"),
  },
  permute: true,
  other: "prompt",
};

/** xxd writes its second file operand; its options are single-dash words (`-cols 8`, `-ps`). */
export const XXD: OptionTable = {
  long: {
    ...flags(
      "a autoskip b bits C capitalize d E EBCDIC e h help i include p ps postscript plain r revert u " +
        "uppercase v version",
    ),
    ...values("c cols g groupsize l len n name o offset R s seek"),
  },
  singleDashLong: true,
  short: { ...flags("a b C d E e h i p r u v"), ...values("c g l n o R s") },
  other: "prompt",
};

function readXxd(name: string, args: readonly Arg[]): ToolReading {
  const { reading, operands } = read(name, args, XXD);
  if (operands.length > 2) addProblems(reading, [`xxd takes at most two files, not ${operands.length}`]);
  writesTo(reading, name, operands[1]);
  return reading;
}

/**
 * yq (Go's or Python's): `-i` edits its files in place. Its option sets differ between the two, so only
 * what writes is looked for: `-i` alone or in a bundle, `--in-place`/`--inplace`, and Go yq's
 * `--split-exp`/`-s` (Python yq's `-s` only slurps; asked about all the same).
 */
function readYq(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  for (const arg of args.slice(1)) {
    if (arg.value === "--") break;
    if (!arg.literal) {
      unknownWord(reading, name, arg);
      continue;
    }
    const w = arg.value;
    if (/^--(in-?place|split-exp)(=|$)/.test(w) || /^-[A-Za-z]*[is]/.test(w))
      addEffects(reading, [{ kind: "tool-option", detail: `yq ${w} writes files` }]);
  }
  return reading;
}

/** less: `+cmd` runs less commands at start-up (`!cmd` runs a program), -o/-O copy the input to a file. */
export const LESS: OptionTable = {
  short: {
    ...flags("a A B c C d e E f F g G i I J K L m M n N q Q r R s S u U V w W X"),
    ...values("b h j p P t T x y z"),
    D: v,
    k: actsOnValue("less reads key bindings from {}"),
    o: writes("less -o writes to {}"),
    O: writes("less -O writes to {}"),
  },
  long: {
    "--log-file": writes("less --log-file writes to {}"),
    "--LOG-FILE": writes("less --LOG-FILE writes to {}"),
    "--lesskey-file": actsOnValue("less reads key bindings from {}"),
    "--lesskey-src": actsOnValue("less reads key bindings from {}"),
    "--lesskey-content": actsOnValue("less takes key bindings {}"),
  },
  permute: true,
  other: "inert",
};

function readLess(name: string, args: readonly Arg[]): ToolReading {
  const { reading } = read(name, args, LESS);
  for (const arg of args.slice(1)) {
    if (arg.literal && arg.value.startsWith("+"))
      addEffects(reading, [
        { kind: "tool-option", detail: `${name} ${arg.value} runs less commands at start-up` },
      ]);
  }
  return reading;
}

const DATE: OptionTable = {
  short: {
    ...flags("R u"),
    d: v,
    f: v,
    r: v,
    I: { value: "optional" },
    s: actsOnValue("date -s sets the clock to {}"),
  },
  long: {
    ...flags("--rfc-email --utc --universal --debug --resolution --help --version"),
    ...values("--date --file --reference --rfc-3339"),
    "--iso-8601": { value: "optional" },
    "--set": actsOnValue("date -s sets the clock to {}"),
  },
  permute: true,
  other: "prompt",
};

/** date: `+FORMAT` prints; any other operand (`MMDDhhmm[[CC]YY][.ss]`) sets the clock. */
function readDate(name: string, args: readonly Arg[]): ToolReading {
  const { reading, operands } = read(name, args, DATE);
  for (const arg of operands) {
    if (!arg.literal) addProblems(reading, [`the date operand ${arg.value} is known only when it runs`]);
    else if (!arg.value.startsWith("+"))
      addEffects(reading, [{ kind: "tool-option", detail: `date ${arg.value} sets the clock` }]);
  }
  return reading;
}

const HOSTNAME: OptionTable = {
  short: { ...flags("a A b d f i I s v y h V"), F: actsOnValue("hostname -F sets the host name from {}") },
  long: {
    ...flags(
      "--alias --all-fqdns --boot --domain --fqdn --long --ip-address --all-ip-addresses --short --verbose " +
        "--yp --nis --help --version",
    ),
    "--file": actsOnValue("hostname -F sets the host name from {}"),
  },
  permute: true,
  other: "prompt",
};

/** hostname: a name operand sets the host name. */
function readHostname(name: string, args: readonly Arg[]): ToolReading {
  const { reading, operands } = read(name, args, HOSTNAME);
  for (const arg of operands)
    addEffects(reading, [{ kind: "tool-option", detail: `hostname ${arg.value} sets the host name` }]);
  return reading;
}

/**
 * openssl: hundreds of options across its sub-commands, nearly all inert; these write a file, or load
 * code or a config that can (engines, providers). Options are single-dash words (`-out f`, `-out=f` no).
 */
const OPENSSL_WRITES = new Set([
  "-out",
  "-keyout",
  "-writerand",
  "-CAserial",
  "-sess_out",
  "-keylogfile",
  "-msgfile",
]);
const OPENSSL_LOADS = new Set([
  "-engine",
  "-provider",
  "-provider-path",
  "-config",
  "-keyform-engine",
  "-ssl_config",
]);

function readOpenssl(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as Arg;
    if (!arg.literal) {
      unknownWord(reading, name, arg);
      continue;
    }
    const option = arg.value.replace(/^--/, "-");
    const value = args[i + 1];
    if (OPENSSL_WRITES.has(option)) {
      if (!(value?.literal && HARMLESS_WRITE_TARGETS.has(value.value)))
        addEffects(reading, [
          { kind: "tool-option", detail: `${name} ${option} writes to ${(value ?? FILLED_IN_LATER).value}` },
        ]);
    } else if (OPENSSL_LOADS.has(option))
      addEffects(reading, [
        { kind: "tool-option", detail: `${name} ${option} loads ${value?.value ?? "…"}, which can run code` },
      ]);
    else if (option === "-CAcreateserial")
      addEffects(reading, [{ kind: "tool-option", detail: `${name} -CAcreateserial writes a serial file` }]);
  }
  return reading;
}

export const WRITER_READERS: Record<string, (name: string, args: readonly Arg[]) => ToolReading> = {
  shuf: (name, args) => read(name, args, SHUF).reading,
  sdiff: (name, args) => read(name, args, SDIFF).reading,
  xxd: readXxd,
  yq: readYq,
  less: readLess,
  date: readDate,
  gdate: readDate,
  hostname: readHostname,
  openssl: readOpenssl,
};
