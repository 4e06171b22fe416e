// git: its global options, its sub-commands (a word git does not know as one of its own may be an alias
// that runs a program), and the options, sub-commands and configuration keys by which git runs programs
// or writes files. What a repository's own configuration makes git do (hooks, core.fsmonitor, a pager) is
// the project's code, like `npm test` running package.json scripts (docs/decisions.md).
import { scanOptions, type Arg, type Effect, type OptionSpec, type OptionTable } from "./option-scan.js";
import { flag as f, valued as v } from "./option-specs.js";
import { addEffects, addProblems, emptyReading, type ToolReading } from "./tool-readings.js";

const config = (detail: string): OptionSpec => ({ value: true, effect: { kind: "inline-code", detail } });

const GLOBAL: OptionTable = {
  short: {
    C: v,
    c: config("git -c {} can make git run other commands (aliases, pagers, ssh)"),
    p: f,
    P: f,
    v: f,
    h: f,
  },
  long: {
    "--version": f,
    "--help": f,
    "--html-path": f,
    "--man-path": f,
    "--info-path": f,
    "--paginate": f,
    "--no-pager": f,
    "--no-replace-objects": f,
    "--no-lazy-fetch": f,
    "--no-optional-locks": f,
    "--no-advice": f,
    "--bare": f,
    "--literal-pathspecs": f,
    "--glob-pathspecs": f,
    "--noglob-pathspecs": f,
    "--icase-pathspecs": f,
    "--git-dir": v,
    "--work-tree": v,
    "--namespace": v,
    "--attr-source": v,
    "--list-cmds": { value: "optional" },
    "--config-env": config("git --config-env {} can make git run other commands (aliases, pagers, ssh)"),
    "--exec-path": {
      value: "optional",
      effect: {
        kind: "inline-code",
        detail: "git --exec-path= makes git run its commands from another folder",
      },
    },
  },
  other: "prompt",
};

/** git's own commands (porcelain and the plumbing agents use); anything else may be an alias or a plug-in. */
// prettier-ignore
const SUBCOMMANDS = new Set([
  "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr",
  "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick",
  "clean", "clone", "commit", "commit-graph", "commit-tree", "config", "count-objects", "describe", "diff",
  "diff-files", "diff-index", "diff-tree", "difftool", "fetch", "for-each-ref", "for-each-repo", "format-patch",
  "fsck", "gc", "grep", "hash-object", "help", "hook", "index-pack", "init", "interpret-trailers", "log",
  "ls-files", "ls-remote", "ls-tree", "maintenance", "merge", "merge-base", "merge-file", "merge-tree",
  "mergetool", "mktag", "mktree", "mv", "name-rev", "notes", "pack-objects", "prune", "pull", "push",
  "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace", "rerere", "reset", "restore",
  "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch", "show-index", "show-ref",
  "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule", "switch", "symbolic-ref", "tag",
  "unpack-objects", "update-index", "update-ref", "var", "verify-commit", "verify-pack", "verify-tag",
  "version", "whatchanged", "worktree", "write-tree", "backfill", "replay", "refs", "diagnose",
]);

/** Merge strategies built into git; any other name runs the program git-merge-<name>. */
const BUILTIN_STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);

/** Configuration keys `git config` may set without a person: none of them names a program or a path to code. */
const HARMLESS_CONFIG = [
  /^user\.(name|email|signingkey)$/,
  /^core\.(autocrlf|safecrlf|ignorecase|filemode|eol|quotepath|precomposeunicode|longpaths|symlinks)$/,
  /^init\.defaultbranch$/,
  /^pull\.(rebase|ff)$/,
  /^push\.(default|autosetupremote|followtags)$/,
  /^fetch\.(prune|prunetags|parallel)$/,
  /^merge\.(conflictstyle|ff)$/,
  /^rebase\.(autosquash|autostash|updaterefs)$/,
  /^color\.[\w.]+$/,
  /^advice\.\w+$/,
  /^column\.\w+$/,
  /^status\.\w+$/,
  /^log\.(date|decorate|abbrevcommit|follow)$/,
  /^branch\.[^.]+\.(remote|merge|rebase)$/,
  /^remote\.[^.]+\.(url|fetch|pushurl|prune)$/,
  /^commit\.(verbose|cleanup)$/,
  /^diff\.(renames|algorithm|colormoved|mnemonicprefix|noprefix|statgraphwidth)$/,
  /^help\.autocorrect$/,
  /^safe\.directory$/,
];
const CONFIG_READ_OPTIONS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "-l",
  "--list",
  "--get-color",
  "--get-colorbool",
  "--show-origin",
  "--show-scope",
  "--name-only",
]);

const tool = (detail: string): Effect => ({ kind: "tool-option", detail });
const runsValue = (detail: string): OptionSpec => ({ value: true, effect: tool(detail) });
const writesValue = (detail: string): OptionSpec => ({
  value: true,
  writesValue: true,
  effect: tool(detail),
});

/** Options of sub-commands that run programs or write files, by sub-command; other options are inert. */
const SUB_OPTIONS: Record<string, OptionTable> = {
  clone: {
    short: {
      u: runsValue("git clone -u runs {} as the upload-pack program"),
      c: runsValue("git clone -c sets {}, which can make git run programs"),
      o: v,
      b: v,
      j: v,
    },
    long: {
      "--upload-pack": runsValue("git clone --upload-pack runs {}"),
      "--template": runsValue("git clone --template copies hooks from {}, which git then runs"),
      "--config": runsValue("git clone --config sets {}, which can make git run programs"),
      "--origin": v,
      "--branch": v,
      "--depth": v,
      "--reference": v,
      "--separate-git-dir": v,
      "--jobs": v,
      "--filter": v,
    },
    permute: true,
    other: "inert",
  },
  init: {
    long: { "--template": runsValue("git init --template copies hooks from {}, which git then runs") },
    permute: true,
    other: "inert",
  },
  fetch: {
    long: { "--upload-pack": runsValue("git fetch --upload-pack runs {}") },
    permute: true,
    other: "inert",
  },
  pull: {
    short: { s: v, X: v },
    long: {
      "--upload-pack": runsValue("git pull --upload-pack runs {}"),
      "--strategy": v,
      "--strategy-option": v,
    },
    permute: true,
    other: "inert",
  },
  "ls-remote": {
    long: { "--upload-pack": runsValue("git ls-remote --upload-pack runs {}") },
    permute: true,
    other: "inert",
  },
  push: {
    long: {
      "--receive-pack": runsValue("git push --receive-pack runs {}"),
      "--exec": runsValue("git push --exec runs {}"),
    },
    permute: true,
    other: "inert",
  },
  archive: {
    short: { o: writesValue("git archive -o writes to {}") },
    long: {
      "--output": writesValue("git archive --output writes to {}"),
      "--exec": runsValue("git archive --exec runs {}"),
    },
    permute: true,
    other: "inert",
  },
  grep: {
    short: { O: { value: "optional", effect: tool("git grep -O opens the files in a pager program") } },
    long: {
      "--open-files-in-pager": {
        value: "optional",
        effect: tool("git grep --open-files-in-pager runs a pager program"),
      },
    },
    permute: true,
    other: "inert",
  },
  rebase: {
    short: { x: runsValue("git rebase -x runs {}"), s: v, X: v },
    long: {
      "--exec": runsValue("git rebase --exec runs {}"),
      "--strategy": v,
      "--strategy-option": v,
      "--onto": v,
    },
    permute: true,
    other: "inert",
  },
  merge: {
    short: { s: v, X: v, m: v, F: v },
    long: { "--strategy": v, "--strategy-option": v },
    permute: true,
    other: "inert",
  },
  "cherry-pick": {
    short: { s: f, X: v, m: v },
    long: { "--strategy": v, "--strategy-option": v },
    permute: true,
    other: "inert",
  },
  revert: {
    short: { X: v, m: v },
    long: { "--strategy": v, "--strategy-option": v },
    permute: true,
    other: "inert",
  },
  difftool: {
    short: { x: runsValue("git difftool -x runs {}"), t: v },
    long: { "--extcmd": runsValue("git difftool --extcmd runs {}"), "--tool": v },
    permute: true,
    other: "inert",
  },
  mergetool: { short: { t: v }, long: { "--tool": v }, permute: true, other: "inert" },
  help: {
    short: {
      w: { effect: tool("git help -w runs a browser") },
      i: { effect: tool("git help -i runs info") },
    },
    long: {
      "--web": { effect: tool("git help --web runs a browser") },
      "--info": { effect: tool("git help --info runs info") },
    },
    permute: true,
    other: "inert",
  },
};
for (const sub of [
  "log",
  "show",
  "diff",
  "whatchanged",
  "diff-files",
  "diff-index",
  "diff-tree",
  "range-diff",
  "format-patch",
  "shortlog",
]) {
  SUB_OPTIONS[sub] = {
    long: { "--output": writesValue(`git ${sub} --output writes to {}`) },
    permute: true,
    other: "inert",
  };
}

function readConfig(args: readonly Arg[], at: number, reading: ToolReading): void {
  const rest = args.slice(at + 1);
  if (rest.some((a) => !a.literal)) {
    addProblems(reading, ["git config with a word known only when it runs"]);
    return;
  }
  const words = rest.map((a) => a.value);
  if (words.some((w) => CONFIG_READ_OPTIONS.has(w) || w.startsWith("--get"))) return;
  const operands = words.filter((w) => !w.startsWith("-"));
  if (["get", "list"].includes(operands[0] ?? "")) return;
  const setting = operands[0] === "set" || operands[0] === "unset" ? operands.slice(1) : operands;
  if (
    setting.length <= 1 &&
    operands[0] !== "unset" &&
    !words.includes("--unset") &&
    !words.includes("--edit") &&
    !words.includes("-e")
  )
    return;
  const key = (setting[0] ?? "").toLowerCase();
  if (!words.includes("--edit") && !words.includes("-e") && HARMLESS_CONFIG.some((re) => re.test(key)))
    return;
  addEffects(reading, [
    tool(`git config changes ${key || "the configuration"}, which can make git run programs`),
  ]);
}

export function readGit(args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  const global = scanOptions("git", args, 1, GLOBAL);
  addProblems(reading, global.problems);
  addEffects(reading, global.effects);
  const subArg = args[global.end];
  if (!subArg) return reading;
  if (!subArg.literal) {
    addProblems(reading, [`the git sub-command ${subArg.value} is known only when it runs`]);
    return reading;
  }
  const sub = subArg.value;
  if (!SUBCOMMANDS.has(sub)) {
    addEffects(reading, [
      tool(
        `git ${sub} is not one of git's own commands: it may be an alias or a plug-in that runs a program`,
      ),
    ]);
    return reading;
  }
  const at = global.end;
  if (sub === "config") {
    readConfig(args, at, reading);
    return reading;
  }
  const next = args[at + 1]?.literal ? args[at + 1]?.value : undefined;
  if (sub === "bisect" && next === "run")
    addEffects(reading, [tool("git bisect run runs a command for each step")]);
  if (sub === "submodule" && args.slice(at + 1).some((a) => a.literal && a.value === "foreach"))
    addEffects(reading, [tool("git submodule foreach runs a shell command in every submodule")]);
  if (sub === "maintenance" && ["start", "register"].includes(next ?? ""))
    addEffects(reading, [tool(`git maintenance ${next} installs scheduled jobs`)]);
  const table = SUB_OPTIONS[sub];
  if (!table) return reading;
  const scan = scanOptions(`git ${sub}`, args, at + 1, table);
  addProblems(reading, scan.problems);
  addEffects(reading, scan.effects);
  for (const o of scan.options.filter((o) => ["s", "--strategy"].includes(o.name) && o.value)) {
    const strategy = o.value as Arg;
    if (!strategy.literal || !BUILTIN_STRATEGIES.has(strategy.value))
      addEffects(reading, [
        tool(`git ${sub} --strategy ${strategy.value} runs the program git-merge-${strategy.value}`),
      ]);
  }
  return reading;
}
