// The read rule applied to a command (docs/decisions.md "One read rule"): every file the shell or a program
// of the command line opens is worked out as they will work it out — the words as the shell expands
// them (path-word.ts: quotes, braces, `~`, variables from the environment the command runs with, globs
// matched on disk), the files each program takes from them (the tool table, tool-files.ts), each placed
// as the kernel will open it (its text form and its real path) — and judged by read-rule.ts. A file
// that cannot be known before the command runs needs a person. Pure: the disk is reached through a
// FileLookup (io/file-lookup.ts).
import path from "node:path";
import { wordArg, type Collected, type RawRedirect, type RawSegment } from "./analyze-walk.js";
import type { FolderMove } from "./tool-readings.js";
import { commandBaseName } from "./command-rules.js";
import type { FileLookup } from "./io/file-lookup.js";
import type { Arg } from "./option-scan.js";
import { hasGlob, namedInText, textOf, wordValues, type WordContext } from "./path-word.js";
import { readConcern, treeConcern, type ReadConcern } from "./read-rule.js";
import {
  anyWord,
  fileReading,
  finderFolders,
  type FileAccess,
  type FileReading,
  type FileUse,
} from "./tool-files.js";
import type { Flag } from "./types.js";
import type { ProtectedFolders } from "../workdir/io/protected-folders.js";

export interface ReadRuleContext {
  /** The folder the command runs in (absolute, resolved). */
  cwd: string;
  /** The environment the command runs with. */
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  platform: NodeJS.Platform;
  folders: ProtectedFolders;
  lookup: FileLookup;
}

const VERB: Record<FileAccess, string> = { read: "reads", write: "writes", any: "opens" };

/** A word the shell passes as written: no quote, `~`, `$`, glob, brace, backslash or blank, no leading `=` (zsh). */
const PLAIN_WORD = /^[\w./,:@%+-][\w./,:@%+=-]*$/;

/** A word whose value is known only when the command runs, and why. */
function unknownArg(arg: Arg, why: string, splits?: boolean): Arg {
  return { ...arg, literal: false, why, ...(splits ? { splits: true, mayBeOption: true } : {}) };
}

/** What a word becomes: literal words as the program sees them, or the word itself when it is not known. */
function expand(arg: Arg, where: WordContext, cwd: string | null, ctx: ReadRuleContext): Arg[] {
  if (!arg.word) return [arg]; // an argv word (no shell), or one filled in when it runs (xargs, find -exec)
  // most words are plain text: nothing for the shell to expand, no quotes to remove
  if (PLAIN_WORD.test(arg.word.raw)) return [{ value: arg.word.raw, literal: true }];
  const listed = substitutedFinder(arg, where, cwd, ctx);
  if (listed) return [listed];
  const values = wordValues(arg.word, where);
  if (!values.ok) return [unknownArg(arg, values.why)];
  const out: Arg[] = [];
  for (const chars of values.words) {
    if (!hasGlob(chars)) {
      out.push({ value: textOf(chars), literal: true });
      continue;
    }
    const globbed = ctx.lookup.glob(chars, cwd);
    if (!globbed.ok) out.push(unknownArg(arg, globbed.why, true));
    else for (const word of globbed.words) out.push({ value: word, literal: true });
  }
  return out;
}

/** `$(git ls-files '*.py')`: a substitution whose one command is a finder stands for files it finds. */
function substitutedFinder(
  arg: Arg,
  where: WordContext,
  cwd: string | null,
  ctx: ReadRuleContext,
): Arg | null {
  const part = arg.word?.parts.length === 1 ? arg.word.parts[0] : undefined;
  if (part?.kind !== "cmdsubst" || part.script.length !== 1) return null;
  const pipelines = part.script[0]?.pipelines ?? [];
  const command =
    pipelines.length === 1 && pipelines[0]?.commands.length === 1 ? pipelines[0].commands[0] : null;
  if (command?.kind !== "simple" || command.assigns.length > 0 || command.words.length === 0) return null;
  if (command.redirs.some((r) => !(r.fd === "2" && r.target && wordArg(r.target).value === "/dev/null")))
    return null;
  const args = command.words.flatMap((w, i) =>
    i === 0 ? [wordArg(w)] : expand(wordArg(w), where, cwd, ctx),
  );
  const folders = finderFolders(commandBaseName((args[0] as Arg).value, ctx.platform), args);
  return folders ? { value: arg.value, literal: false, splits: true, found: { folders } } : null;
}

/** What xargs fills in from its input, when a finder of the same pipeline writes that input. */
function fromFinder(
  arg: Arg,
  producer: RawSegment | undefined,
  where: WordContext,
  cwd: string | null,
  ctx: ReadRuleContext,
): Arg {
  if (!producer || producer.unresolvable !== undefined) return arg;
  const args = [
    producer.args[0] as Arg,
    ...producer.args.slice(1).flatMap((a) => expand(a, where, cwd, ctx)),
  ];
  const folders = finderFolders(commandBaseName(producer.executable, ctx.platform), args);
  return folders ? { ...arg, found: { folders } } : arg;
}

function whyUnknown(arg: Arg): string {
  return arg.why ?? "it is known only when the command runs";
}

interface Judged {
  flags: Flag[];
  /** The segment reads files other commands of the line could change first. */
  reads: boolean;
  changes: FileReading["changes"];
}

class Judge {
  readonly flags: Flag[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly ctx: ReadRuleContext) {}

  flag(flag: Flag): void {
    const key = `${flag.kind}\0${flag.detail}\0${flag.segment ?? ""}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.flags.push(flag);
  }

  /** Judges one file a program opens; `who` names the program for the person (`cat`, `the shell`). */
  file(use: FileUse, cwd: string | null, who: string, segment: number | undefined): void {
    const { platform, lookup, folders } = this.ctx;
    const text = use.arg.value;
    if (text === "" || text === "-") return; // nothing, or standard input
    const api = platform === "win32" ? path.win32 : path.posix;
    const at = segment === undefined ? {} : { segment };
    if (!api.isAbsolute(text) && cwd === null) {
      this.flag({
        kind: "unknown-file",
        detail: `${who} ${VERB[use.access]} ${text} in a folder a cd before it makes known only when it runs`,
        ...at,
      });
      return;
    }
    const raw = api.isAbsolute(text) ? text : `${cwd as string}${api.sep}${text}`;
    const lexical = api.resolve(raw);
    const real = lookup.real(raw);
    const judge = use.recursive ? treeConcern : readConcern;
    let concern: ReadConcern | null = judge(lexical, folders) ?? judge(real, folders);
    if (!concern && use.follows) {
      const tree = lookup.tree(real);
      const odd = tree.ok && use.found ? tree.oddName : undefined;
      if (!tree.ok || odd !== undefined) {
        const what = use.found ? `files found in ${text}` : `where the links inside ${text} lead`;
        const why = tree.ok
          ? `it holds ${JSON.stringify(odd)}, a name the shell or xargs would not pass as one word`
          : tree.why;
        this.flag({ kind: "unknown-file", detail: `${who} ${VERB[use.access]} ${what}, and ${why}`, ...at });
        return;
      }
      for (const target of tree.links) {
        concern = treeConcern(target, folders);
        if (concern) break;
      }
    }
    if (!concern) return;
    const shown = real === text || lexical === text ? text : `${text} (${real})`;
    this.flag({
      kind: concern.kind === "own" ? "own-files" : "protected-files",
      detail: `${who} ${VERB[use.access]} ${shown}${use.recursive ? " and what lies inside it" : ""}: ${concern.where}`,
      ...at,
    });
  }

  unknown(detail: string, segment: number | undefined): void {
    this.flag({
      kind: "unknown-file",
      detail,
      ...(segment === undefined ? {} : { segment }),
    });
  }
}

/** Folders a command may run in after the cd's before it; more than this and it is not worked out. */
const MAX_FOLDERS = 8;

/**
 * Every folder a command may run in: where the command starts (or where `env -C` moves it), then every
 * folder a `cd` or `pushd` of its shells may have moved to, in order (a cd that fails leaves it where it
 * was, so each earlier folder stays possible). Null when one of them is known only when it runs.
 */
function runFolders(
  start: string | null,
  moves: readonly FolderMove[] | undefined,
  ctx: ReadRuleContext,
  context: (cwd: string | null) => WordContext,
): string[] | null {
  if (start === null) return null;
  const folders = [start];
  const api = ctx.platform === "win32" ? path.win32 : path.posix;
  for (const move of moves ?? []) {
    if (move === "back") continue;
    if (move === "unknown") return null;
    const next: string[] = [];
    for (const from of folders) {
      if (move === "home") {
        next.push(ctx.env.HOME ?? ctx.home);
        continue;
      }
      const words = expand(move, context(from), from, ctx);
      const word = words[0];
      if (words.length !== 1 || !word?.literal) return null;
      // CDPATH makes a bare name mean a folder somewhere else
      if (ctx.env.CDPATH && !/^(\/|\.\.?(\/|$))/.test(word.value)) return null;
      next.push(api.isAbsolute(word.value) ? word.value : `${from}${api.sep}${word.value}`);
    }
    for (const folder of next) if (!folders.includes(folder)) folders.push(folder);
    if (folders.length > MAX_FOLDERS) return null;
  }
  return folders;
}

function startFolder(raw: RawSegment, ctx: ReadRuleContext): string | null {
  if (raw.chdir === undefined) return ctx.cwd;
  const api = ctx.platform === "win32" ? path.win32 : path.posix;
  return raw.chdir.startsWith("~") ? null : api.resolve(ctx.cwd, raw.chdir);
}

/** The read rule's flags for a collected command (each names what opens which file, and why). */
export function readRuleFlags(collected: Collected, ctx: ReadRuleContext): Flag[] {
  const judge = new Judge(ctx);
  const setInScript = (() => {
    const memo = new Map<string, boolean>();
    return (name: string) => {
      let hit = memo.get(name);
      if (hit === undefined) {
        hit = namedInText(collected.texts, name);
        memo.set(name, hit);
      }
      return hit;
    };
  })();
  const context = (cwd: string | null): WordContext => ({ env: ctx.env, home: ctx.home, cwd, setInScript });

  const judged: Judged[] = collected.segments.map((raw, index) =>
    judgeSegment(collected.segments, raw, index, ctx, judge, context),
  );

  const redirectReads: RawRedirect[] = [];
  for (const redirect of collected.redirects) {
    const folders = runFolders(ctx.cwd, redirect.folderMoves, ctx, context);
    for (const cwd of folders ?? [null]) {
      const words = expand(redirect.target, context(cwd), cwd, ctx);
      for (const word of words) {
        if (!word.literal)
          judge.unknown(`the shell opens ${redirect.target.value}, and ${whyUnknown(word)}`, undefined);
        else judge.file({ arg: word, access: redirect.access }, cwd, "the shell", undefined);
      }
    }
    if (redirect.access === "read") redirectReads.push(redirect);
  }

  // A program that creates, moves or replaces files or links can swap what another program of the same
  // line opens after it was judged here (`git checkout x && cat README`): those reads need a person.
  const changers = judged.flatMap((j, i) => (j.changes === "links" ? [i] : []));
  if (changers.length > 0) {
    const by = collected.segments[changers[0] as number]?.executable ?? "a command";
    judged.forEach((j, i) => {
      if (!j.reads || (changers.length === 1 && changers[0] === i)) return;
      const name = collected.segments[i]?.executable ?? "a command";
      judge.unknown(
        `${name} reads files that ${by}, in the same command, may change before they are read`,
        i,
      );
    });
    if (redirectReads.length > 0)
      judge.unknown(
        `the shell reads a file (<) that ${by}, in the same command, may change first`,
        undefined,
      );
  }
  return judge.flags;
}

function judgeSegment(
  segments: readonly RawSegment[],
  raw: RawSegment,
  index: number,
  ctx: ReadRuleContext,
  judge: Judge,
  context: (cwd: string | null) => WordContext,
): Judged {
  const none: Judged = { flags: [], reads: false, changes: "nothing" };
  // builtins open nothing here (a cd is read as an unknown folder); a dynamic name is flagged already
  if (raw.builtin !== undefined || raw.unresolvable !== undefined) return none;
  const name = commandBaseName(raw.executable, ctx.platform);
  const folders = runFolders(startFolder(raw, ctx), raw.folderMoves, ctx, context);
  const judged: Judged = { flags: [], reads: false, changes: "nothing" };
  for (const cwd of folders ?? [null]) {
    const where = context(cwd);
    const args: Arg[] = [raw.args[0] as Arg];
    for (const arg of raw.args.slice(1)) {
      if (arg.fromInput) {
        const producer = raw.stdinFrom === undefined ? undefined : segments[raw.stdinFrom];
        args.push(fromFinder(arg, producer, where, cwd, ctx));
      } else if (arg.found) {
        // find's starting points, as the shell gave them to find
        const folders = arg.found.folders.flatMap((f) => expand(f, where, cwd, ctx));
        args.push(
          folders.every((f) => f.literal) ? { ...arg, found: { folders } } : { ...arg, found: undefined },
        );
      } else args.push(...expand(arg, where, cwd, ctx));
    }
    // a wrapper's own words start the command after it (a segment of its own); xargs and flock have rows
    const reading = fileReading(name, args) ?? (raw.wrapper ? null : anyWord(name, args, "links"));
    if (!reading) return none;
    for (const use of reading.uses) judge.file(use, cwd, name, index);
    if (reading.unknown !== null) judge.unknown(reading.unknown, index);
    // what a described program reads; an undescribed one's words were judged as they are now
    if (reading.uses.some((u) => u.access === "read")) judged.reads = true;
    if (reading.changes === "links" || judged.changes === "nothing") judged.changes = reading.changes;
  }
  return judged;
}
