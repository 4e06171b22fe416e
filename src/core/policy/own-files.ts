// Gatehouse's own folder (E) holds its policy and its secrets: the approvals file with the socket token,
// the fallback secrets file, the audit log. Agents run as the same user, so a command naming that folder
// (`cat ~/.wegent-executor/exec-approvals.json` through an allowlisted `cat`) needs a person, whatever the
// allowlist says. The managed workspace inside E is where tasks work and stays open.
//
// The first line is the read rule (read-rule.ts, file-reads.ts): the files a command opens, worked out as
// the shell and the program will (globs, quotes, variables, links). This is the second line: it reads
// the command's text for every spelling of the folder a shell would expand to it (absolute, `~/…`,
// `$HOME/…`, `${HOME}/…`, and the folder's own name for paths relative to home), whatever program names
// it — a net under the first, not a proof.
import path from "node:path";

export interface OwnFiles {
  /** Gatehouse's home E (absolute). */
  folder: string;
  /** Folders inside it agents may use (the managed workspace). */
  open: readonly string[];
  /** The user's home, for `~`/`$HOME` spellings. */
  home: string;
  /** The agents' homes (CLAUDE_CONFIG_DIR, CODEX_HOME): protected folders for the read rule (read-rule.ts). */
  claudeHome?: string;
  codexHome?: string;
}

/** Per OwnFiles object (one per service): its spellings and open tails, computed once. */
const prepared = new WeakMap<OwnFiles, { spellings: string[]; openTails: string[] }>();

function prepare(own: OwnFiles): { spellings: string[]; openTails: string[] } {
  let ready = prepared.get(own);
  if (!ready) {
    const openTails = own.open
      .map((o) => path.relative(own.folder, o))
      .filter((r) => r && !r.startsWith("..") && !path.isAbsolute(r));
    ready = { spellings: spellings(own), openTails };
    prepared.set(own, ready);
  }
  return ready;
}

function spellings(own: OwnFiles): string[] {
  const { folder, home } = own;
  const out = new Set([folder]);
  const relative = path.relative(home, folder);
  if (relative && !relative.startsWith("..") && !path.isAbsolute(relative)) {
    for (const base of ["~", "$HOME", "${HOME}"]) out.add(`${base}/${relative}`);
    out.add(relative.split("/")[0] as string); // `.wegent-executor` after a `cd ~`
  }
  return [...out].filter((s) => s.length >= 4);
}

/** Why `text` names Gatehouse's own files, or null. */
export function namesOwnFiles(text: string, own: OwnFiles): string | null {
  const { spellings, openTails } = prepare(own);
  for (const spelling of spellings) {
    for (let at = text.indexOf(spelling); at !== -1; at = text.indexOf(spelling, at + 1)) {
      const rest = text.slice(at + spelling.length);
      // `~/.wegent-executor/workspace/x` is the open workspace; `~/.wegent-executorX` is another name
      if (/^[\w.-]/.test(rest)) continue;
      if (
        openTails.some(
          (tail) =>
            rest === `/${tail}` ||
            rest.startsWith(`/${tail}/`) ||
            new RegExp(`^/${tail}\\b(?![.-])`).test(rest),
        )
      )
        continue;
      return `it names Gatehouse's own folder (${spelling}), which holds its policy and secrets`;
    }
  }
  return null;
}

/** Gatehouse's own files for a home's paths: E, with the managed workspace open. */
export function ownFilesOf(paths: {
  executorHome: string;
  defaultWorkspaceRoot: string;
  home: string;
  claudeHome?: string;
  codexHome?: string;
}): OwnFiles {
  return {
    folder: paths.executorHome,
    open: [paths.defaultWorkspaceRoot],
    home: paths.home,
    ...(paths.claudeHome !== undefined ? { claudeHome: paths.claudeHome } : {}),
    ...(paths.codexHome !== undefined ? { codexHome: paths.codexHome } : {}),
  };
}
