// The one table of what particular commands do beyond their plain job (exec-policy.md "Analysing a
// command"): dispatch wrappers and the command they start, shells and the script they run,
// interpreters and the code they take inline, and tools whose options, sub-commands or config run
// programs or write files. Each entry is data — option tables read by option-scan.ts — plus, where a tool
// has a language of its own (sed scripts, find expressions, git sub-commands), a small reader of it.
// A command not in the table is an ordinary program: its arguments are its data.
import { readGit } from "./tool-git.js";
import { readInterpreter, INTERPRETERS } from "./tool-interpreters.js";
import { readShell, SHELLS } from "./tool-shells.js";
import { readBuiltin, COVERED_BUILTINS } from "./tool-builtins.js";
import { WRAPPERS, readWrapper } from "./tool-wrappers.js";
import { readDataTool, DATA_TOOLS } from "./tool-data.js";
import { readRunner, RUNNER_TOOLS } from "./tool-runners.js";
import type { Arg } from "./option-scan.js";
import type { Dialect, ToolReading } from "./tool-readings.js";

export interface ReadContext {
  /** The command's name as rules key on it (base name; Windows: lower case, no extension). */
  name: string;
  /** Run by a shell with a bare name: a builtin of that shell may answer. */
  viaShell: boolean;
  dialect: Dialect;
  /** What standard input holds when it is written in the command itself (a here-document), else null. */
  stdin: string | null;
}

export type ToolRole = "builtin" | "wrapper" | "shell" | "interpreter" | "tool";

/** The role a command name has in the table, or null for an ordinary program. */
export function toolRole(name: string, viaShell: boolean): ToolRole | null {
  if (viaShell && COVERED_BUILTINS.has(name)) return "builtin";
  if (WRAPPERS.has(name) || RUNNER_TOOLS.has(name)) return "wrapper";
  if (SHELLS.has(name)) return "shell";
  if (INTERPRETERS.some((i) => i.names.test(name))) return "interpreter";
  if (name === "git" || DATA_TOOLS.has(name)) return "tool";
  return null;
}

/** Reads one command line (`args[0]` is the command) by the table; null for an ordinary program. */
export function readTool(args: readonly Arg[], ctx: ReadContext): ToolReading | null {
  switch (toolRole(ctx.name, ctx.viaShell)) {
    case "builtin":
      return readBuiltin(ctx.name, args, ctx.dialect);
    case "wrapper":
      return RUNNER_TOOLS.has(ctx.name)
        ? readRunner(ctx.name, args)
        : readWrapper(ctx.name, args, ctx.viaShell);
    case "shell":
      return readShell(ctx.name, args, ctx.stdin);
    case "interpreter":
      return readInterpreter(ctx.name, args, ctx.stdin);
    case "tool":
      return ctx.name === "git" ? readGit(args) : readDataTool(ctx.name, args, ctx.stdin);
    default:
      return null;
  }
}

const broadGrants = new Map<string, boolean>();

/** Whether an allowlist entry for this program without an argPattern is broad: it can run or write anything. */
export function grantsMoreThanItsName(name: string): boolean {
  // the table never changes: remembered per name (the interpreters' patterns are tried one by one)
  let broad = broadGrants.get(name);
  if (broad === undefined) {
    const role = toolRole(name, false);
    broad = role !== null && role !== "builtin";
    if (broadGrants.size >= 4096) broadGrants.clear();
    broadGrants.set(name, broad);
  }
  return broad;
}
