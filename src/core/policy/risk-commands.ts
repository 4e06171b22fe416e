// Commands whose harm a person should read before allowing, recognised from their words (issue 32, Build 4):
// package installs (code from the internet that runs as the user), deletes on another machine
// (`rsync --delete` to `host:`, `ssh host rm -r …`), administrator rights on another machine (`ssh host
// sudo …`), and inline code that deletes files (`python -c "…shutil.rmtree…"`). Pure text: each takes the
// program's name as it runs and its words; nothing decides here (risk.ts turns these into the banner).

/** The first word that is not an option (`install` in `pip --quiet install x`). */
function subcommand(args: readonly string[]): { sub: string | undefined; rest: readonly string[] } {
  const at = args.findIndex((a) => !a.startsWith("-"));
  return at < 0 ? { sub: undefined, rest: [] } : { sub: args[at], rest: args.slice(at + 1) };
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;

/** Installers by program: whether these words install packages. */
const INSTALLERS: Record<string, (args: readonly string[]) => boolean> = {
  pip: (a) => subcommand(a).sub === "install",
  pip3: (a) => subcommand(a).sub === "install",
  pipx: (a) => ["install", "run"].includes(subcommand(a).sub ?? ""),
  uv: (a) => {
    const { sub, rest } = subcommand(a);
    return sub === "add" || ((sub === "pip" || sub === "tool") && subcommand(rest).sub === "install");
  },
  poetry: (a) => ["add", "install"].includes(subcommand(a).sub ?? ""),
  npm: (a) => ["install", "i", "in", "ins", "add", "ci"].includes(subcommand(a).sub ?? ""),
  pnpm: (a) => ["install", "i", "add"].includes(subcommand(a).sub ?? ""),
  bun: (a) => ["install", "i", "add"].includes(subcommand(a).sub ?? ""),
  yarn: (a) => ["install", "add", undefined].includes(subcommand(a).sub),
  deno: (a) => ["install", "add"].includes(subcommand(a).sub ?? ""),
  gem: (a) => subcommand(a).sub === "install",
  cargo: (a) => subcommand(a).sub === "install",
  go: (a) => ["install", "get"].includes(subcommand(a).sub ?? ""),
  composer: (a) => ["install", "require"].includes(subcommand(a).sub ?? ""),
  brew: (a) => ["install", "reinstall"].includes(subcommand(a).sub ?? ""),
  apt: (a) => subcommand(a).sub === "install",
  "apt-get": (a) => subcommand(a).sub === "install",
  dnf: (a) => subcommand(a).sub === "install",
  yum: (a) => subcommand(a).sub === "install",
  zypper: (a) => ["install", "in"].includes(subcommand(a).sub ?? ""),
  pacman: (a) => a.some((w) => /^-S/.test(w)),
  conda: (a) => subcommand(a).sub === "install",
  mamba: (a) => subcommand(a).sub === "install",
};

/** Whether the command installs packages (from the internet, with scripts of their own). */
export function installs(name: string, argv: readonly string[]): boolean {
  const args = argv.slice(1);
  if (PYTHON.test(name) && args[0] === "-m" && (args[1] === "pip" || args[1] === "pip3"))
    return subcommand(args.slice(2)).sub === "install";
  return INSTALLERS[name]?.(args) ?? false;
}

/** rsync's options whose value is the next word (`-e 'ssh -p 2222'`). */
const RSYNC_VALUE_OPTIONS = new Set([
  "-e",
  "--rsh",
  "-f",
  "--filter",
  "--exclude",
  "--include",
  "--exclude-from",
  "--include-from",
  "--files-from",
  "-T",
  "--temp-dir",
  "--compare-dest",
  "--copy-dest",
  "--link-dest",
  "--backup-dir",
  "--suffix",
  "--chmod",
  "--chown",
  "--timeout",
  "--port",
  "--partial-dir",
  "--log-file",
  "--password-file",
  "-M",
  "--remote-option",
  "-B",
  "--block-size",
  "--bwlimit",
  "--max-size",
  "--min-size",
  "--out-format",
]);

/** ssh's options whose value is the next word (or the rest of the same word: `-p22`). */
const SSH_VALUE_OPTIONS = "BbcDEeFIiJLlmOoPpQRSWw";

/** `host` of `user@host:path`, `host::module` or `rsync://host/…`; null for a local path. */
function remoteHost(word: string): string | null {
  const url = /^rsync:\/\/(?:[^@/]+@)?([^/:]+)/.exec(word);
  if (url) return url[1] as string;
  // one letter before ':' is a Windows drive (C:\x), not a host
  const m = /^(?:[^@/:]+@)?([A-Za-z0-9_][A-Za-z0-9_.-]+|\[[0-9A-Fa-f:]+\]):/.exec(word);
  return m ? (m[1] as string) : null;
}

/** The words of the command `ssh` runs on the other machine, and that machine (null: not `ssh … cmd`). */
function sshRemote(argv: readonly string[]): { host: string; words: string[] } | null {
  let i = 1;
  while (i < argv.length) {
    const a = argv[i] as string;
    if (a === "--") {
      i += 1;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const last = a[a.length - 1] as string;
    // `-p 22` takes the next word; `-p22` and clusters ending in a flag do not
    i += a.length === 2 && SSH_VALUE_OPTIONS.includes(last) ? 2 : 1;
  }
  const destination = argv[i];
  if (destination === undefined || i + 1 >= argv.length) return null;
  const host = destination
    .replace(/^ssh:\/\//, "")
    .replace(/^[^@]*@/, "")
    .replace(/:\d+$/, "");
  // the remote command is one string for the remote shell, however it was split here
  const words = argv
    .slice(i + 1)
    .join(" ")
    .split(/[\s;&|()'"]+/)
    .filter(Boolean);
  return { host, words };
}

const REMOTE_PRIVILEGE = new Set(["sudo", "doas", "su", "pkexec", "run0"]);

export type RemoteHarm = { kind: "destructive" | "privilege"; host: string; what: string };

/** What a command does to another machine that a person should read first, or null. */
export function remoteHarm(name: string, argv: readonly string[]): RemoteHarm | null {
  if (name === "rsync") {
    const args = argv.slice(1);
    if (!args.some((a) => /^--del(ete(-[a-z]+)?)?$/.test(a))) return null;
    const operands: string[] = [];
    for (let i = 0; i < args.length; i += 1) {
      const a = args[i] as string;
      if (RSYNC_VALUE_OPTIONS.has(a)) i += 1;
      else if (!a.startsWith("-")) operands.push(a);
    }
    const destination = operands[operands.length - 1];
    const host = destination === undefined || operands.length < 2 ? null : remoteHost(destination);
    if (host === null) return null;
    const sources = operands.slice(0, -1).join(", ");
    return {
      kind: "destructive",
      host,
      what: `deletes files on ${host} (in ${destination}) that are not in ${sources}`,
    };
  }
  if (name === "ssh") {
    const remote = sshRemote(argv);
    if (!remote) return null;
    if (remote.words.some((w) => REMOTE_PRIVILEGE.has(w)))
      return { kind: "privilege", host: remote.host, what: `runs as administrator on ${remote.host}` };
    const rm = remote.words.indexOf("rm");
    if (rm >= 0 && remote.words.slice(rm + 1).some((w) => w === "--recursive" || /^-[a-zA-Z]*[rR]/.test(w)))
      return { kind: "destructive", host: remote.host, what: `deletes files on ${remote.host}` };
  }
  return null;
}

/** The options by which each language takes its code on the command line. */
const CODE_OPTIONS: Array<{ name: RegExp; options: ReadonlySet<string>; deletes: RegExp }> = [
  {
    name: PYTHON,
    options: new Set(["-c"]),
    deletes:
      /\b(shutil\.rmtree|os\.(?:remove|unlink|rmdir|removedirs)|send2trash|\.unlink\(|\.rmdir\(|rmtree\()/,
  },
  {
    name: /^(node|bun|deno)$/,
    options: new Set(["-e", "--eval", "-p", "--print", "eval"]),
    deletes:
      /\b(rmSync|rmdirSync|unlinkSync|Deno\.remove(?:Sync)?|(?:fs|fsp|promises|fsPromises)\.(?:rm|rmdir|unlink)\b)/,
  },
  { name: /^perl$/, options: new Set(["-e", "-E"]), deletes: /\b(unlink|rmtree|remove_tree|rmdir)\b/ },
  {
    name: /^ruby$/,
    options: new Set(["-e"]),
    deletes:
      /\b(FileUtils\.(?:rm_rf|rm_r|rm_f|rm|remove_dir|remove_entry|remove)|File\.(?:delete|unlink)|Dir\.(?:rmdir|delete|unlink))/,
  },
  { name: /^php$/, options: new Set(["-r"]), deletes: /\b(unlink|rmdir)\s*\(/ },
];

/** A shell command inside the code (`os.system("rm -rf x")`). */
const SHELL_DELETE = /\brm\s+-[a-zA-Z]*[rRf]/;

/** The call by which inline code deletes files (`shutil.rmtree`), or null. */
export function inlineDeletion(name: string, argv: readonly string[]): string | null {
  const language = CODE_OPTIONS.find((l) => l.name.test(name));
  if (!language) return null;
  const at = argv.findIndex((a, i) => i > 0 && language.options.has(a));
  if (at < 0) return null;
  const code = argv.slice(at + 1).join(" ");
  const found = language.deletes.exec(code) ?? SHELL_DELETE.exec(code);
  return found ? (found[1] ?? found[0]).replace(/\($/, "") : null;
}
