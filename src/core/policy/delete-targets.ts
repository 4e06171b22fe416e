// What a deleting command would delete, in the person's words (issue 32: "rm -rf ~" must say "your whole
// home folder"), and whether it is wide: the whole computer, a system folder, every user's home, or a
// whole home folder. Pure text: the words are read as the shell (or, for an argv request, the program)
// receives them, joined to the folder the command runs in; nothing is looked up on disk, so a link is
// not followed (the words name what the person typed, which is what they read in the dialog).
import path from "node:path";

export interface TargetContext {
  /** The user's home (what `~` and `$HOME` name in a shell). */
  home: string;
  /** The folder the command runs in, or null when a `cd` before it makes that known only when it runs. */
  cwd: string | null;
}

export interface DeleteTarget {
  /**
   * What goes, as the person reads it after "deletes": "your whole home folder (/home/ada)", "/srv/app/build
   * and everything in it", "everything in /srv/app/dist".
   */
  words: string;
  /** It is the whole computer, a system folder, every home, or a whole home folder. */
  wide: boolean;
  /** The folder (or file) named, absolute; null when it is known only when the command runs. */
  folder: string | null;
}

/** Top-level folders whose loss breaks the system (Linux, macOS). */
const SYSTEM_FOLDERS = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib64",
  "/opt",
  "/proc",
  "/root",
  "/sbin",
  "/srv",
  "/sys",
  "/usr",
  "/var",
  "/System",
  "/Library",
  "/Applications",
  "/private",
]);
/** Folders that hold every user's home. */
const HOMES = new Set(["/home", "/Users"]);

/** `$HOME`, `${HOME}` and quotes around them read as `~`; null when the word is known only when it runs. */
function shellWord(word: string): string | null {
  const unquoted = word.replace(/["']/g, "");
  const home = unquoted.replace(/^\$(?:HOME\b|\{HOME\})/, "~");
  return /[$`]|\$\(/.test(home) ? null : home;
}

/** The absolute path a word names (`~` read as home only where a shell reads it). */
function absoluteOf(word: string, ctx: TargetContext, shell: boolean): string | null {
  const text = shell ? shellWord(word) : word;
  if (text === null) return null;
  const slashed = text.replace(/\\/g, "/");
  if (shell && (slashed === "~" || slashed.startsWith("~/")))
    return path.posix.join(ctx.home.replace(/\\/g, "/"), slashed.slice(1));
  if (shell && slashed.startsWith("~")) return null; // ~user: whose home is known only when it runs
  if (slashed.startsWith("/")) return path.posix.resolve(slashed);
  return ctx.cwd === null ? null : path.posix.resolve(ctx.cwd.replace(/\\/g, "/"), slashed);
}

/** A trailing `*` or `.*` (everything in the folder) is the folder itself for how wide it is. */
function folderOf(absolute: string): { folder: string; contents: boolean } {
  const m = /^(.*?)\/(?:\*|\.\*|\.|\{\*,\.\*\})$/.exec(absolute);
  if (m) return { folder: m[1] === "" ? "/" : (m[1] as string), contents: true };
  return { folder: absolute, contents: false };
}

/** What deleting the path word `word` of a command in `ctx` deletes. */
export function deleteTargetOf(word: string, ctx: TargetContext, shell: boolean): DeleteTarget {
  const absolute = absoluteOf(word, ctx, shell);
  if (absolute === null) return { words: `${word} (known only when it runs)`, wide: false, folder: null };
  const { folder, contents } = folderOf(absolute.length > 1 ? absolute.replace(/\/+$/, "") : absolute);
  const home = path.posix.resolve(ctx.home.replace(/\\/g, "/"));
  const everything = contents ? "everything in " : "";
  const parent = path.posix.dirname(folder);
  const [words, wide] =
    folder === "/"
      ? [`every file on this computer (${word})`, true]
      : folder === home
        ? [`${everything}your whole home folder (${home})`, true]
        : HOMES.has(folder)
          ? [`every user's home folder (${folder})`, true]
          : SYSTEM_FOLDERS.has(folder)
            ? [`${everything}the system folder ${folder}`, true]
            : HOMES.has(parent)
              ? [`${everything}the whole home folder of ${path.posix.basename(folder)}`, true]
              : contents
                ? [`everything in ${folder}`, false]
                : [`${folder} and everything in it`, false];
  return { words, wide, folder };
}

/** The operands of `rm` (after its options; `--` ends them). */
function rmOperands(args: readonly string[]): string[] {
  const out: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === "--") options = false;
    else if (options && a.startsWith("-") && a !== "-") continue;
    else out.push(a);
  }
  return out;
}

/** `find`'s starting points: the words before its first expression. */
function findStarts(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (a.startsWith("-") || a === "(" || a === "!") break;
    out.push(a);
  }
  return out.length > 0 ? out : ["."];
}

/** `find` words that do not narrow what it finds (a test such as `-name` or `-mtime` does). */
const FIND_NOT_NARROWING = new Set([
  "-delete",
  "-depth",
  "-d",
  "-xdev",
  "-mount",
  "-print",
  "-print0",
  "-mindepth",
  "-maxdepth",
  "-noleaf",
  "-ignore_readdir_race",
  "-H",
  "-L",
  "-P",
]);

/** `find … -delete` (or `-exec rm`) with no test that narrows it: the whole tree of each start goes. */
function deletesEverythingFound(args: readonly string[]): boolean {
  const execAt = args.findIndex((a) => a === "-exec" || a === "-execdir");
  const deletes = args.includes("-delete") || (execAt >= 0 && args[execAt + 1] === "rm");
  if (!deletes) return false;
  const expression = execAt >= 0 ? args.slice(0, execAt) : args;
  return expression.every((a) => !a.startsWith("-") || FIND_NOT_NARROWING.has(a));
}

/** sudo's options that take a value (`-u root`). */
const SUDO_VALUE_OPTIONS = new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"]);

/** The command a privilege wrapper runs (`sudo -u root rm -rf /etc` → `rm -rf /etc`), or null. */
export function privilegedCommand(name: string, argv: readonly string[]): string[] | null {
  if (name !== "sudo" && name !== "doas" && name !== "run0") return null;
  let i = 1;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === "--") return argv.slice(i + 1);
    if (!a.startsWith("-")) break;
    i += SUDO_VALUE_OPTIONS.has(a) ? 2 : 1;
  }
  return i < argv.length ? argv.slice(i) : null;
}

/**
 * What a command deletes recursively (`rm -r`, `find … -delete`), or null when it deletes no folder tree.
 * `name`: the program it runs; `shell`: its words are a shell's (a `~` is the home), not an argv's (a `~`
 * is a name).
 */
export function recursiveDeleteTargets(
  argv: readonly string[],
  name: string,
  ctx: TargetContext,
  shell: boolean,
): DeleteTarget[] | null {
  const args = argv.slice(1);
  if (name === "rm") {
    const recursive = args.some(
      (a) => a === "--recursive" || (/^-[^-]/.test(a) && (a.includes("r") || a.includes("R"))),
    );
    if (!recursive) return null;
    return rmOperands(args).map((w) => deleteTargetOf(w, ctx, shell));
  }
  if (name === "find" && deletesEverythingFound(args))
    return findStarts(args).map((w) => deleteTargetOf(w, ctx, shell));
  return null;
}
