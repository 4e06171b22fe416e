// Codex's apply_patch format read exactly as codex-cli 0.169–0.171 reads it (openai/codex
// `codex-rs/apply-patch`: parser.rs `parse_patch` → streaming_parser.rs `StreamingPatchParser`; checked
// with the real binaries, docs/decisions.md "apply_patch read as Codex reads it"), and the shell forms
// Codex intercepts and applies itself (invocation.rs `extract_apply_patch_from_bash`).
//
// Codex splits on `\n` only (Rust `str::lines`), trims with Rust's `char::is_whitespace` (which knows
// NEL and U+2028 but not BOM), tests `*** Move to:` and update lines only after `trim_end`, and hands
// each path on exactly as the header line leaves it. `readCodexPatch` adds the positive model: a patch
// Codex rejects, a path outside a conservative character set, an environment, or a line that Codex
// versions read differently (an indented header inside an update, padding after a move, a bare `\r`)
// is not understood. Pure and small: the hook loads it for every patch.

/** One file operation of a patch: the paths as Codex hands them on (relative to its working folder). */
export interface PatchOperation {
  kind: "add" | "delete" | "update";
  path: string;
  /** `*** Move to:` of an update: the file is written there and `path` is removed. */
  moveTo?: string;
}

export type PatchReading = { ok: true; operations: PatchOperation[] } | { ok: false; reason: string };

/** What Codex's own parser makes of a patch: its operations, or the error it would report. */
export type CodexPatchParse =
  | {
      ok: true;
      operations: PatchOperation[];
      environmentId: string | null;
      /** Lines this Codex reads one way and another Codex version (older or later) another way. */
      versionSensitive: string[];
    }
  | { ok: false; error: string };

const BEGIN_PATCH = "*** Begin Patch";
const END_PATCH = "*** End Patch";
const ADD_FILE = "*** Add File: ";
const DELETE_FILE = "*** Delete File: ";
const UPDATE_FILE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const CHANGE_CONTEXT = "@@ ";
const EMPTY_CHANGE_CONTEXT = "@@";
const ENVIRONMENT_ID = "*** Environment ID:";
const HEREDOC_OPENERS = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);
const HUNK_HEADERS = [ADD_FILE, DELETE_FILE, UPDATE_FILE, END_PATCH];

/** Rust's `char::is_whitespace`: the Unicode White_Space property (not U+FEFF, not U+200B). */
export function isRustWhitespace(ch: string): boolean {
  const c = ch.codePointAt(0) ?? -1;
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

// Every Rust whitespace character is in the BMP, so testing UTF-16 code units one by one is exact.
export function rustTrimStart(text: string): string {
  let start = 0;
  while (start < text.length && isRustWhitespace(text[start]!)) start++;
  return text.slice(start);
}

export function rustTrimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isRustWhitespace(text[end - 1]!)) end--;
  return text.slice(0, end);
}

export function rustTrim(text: string): string {
  return rustTrimEnd(rustTrimStart(text));
}

/** Rust's `str::lines`: split on `\n`, drop one `\r` before it, no empty line after a final `\n`. */
export function rustLines(text: string): string[] {
  if (text === "") return [];
  const pieces = text.split("\n");
  if (pieces.at(-1) === "") pieces.pop();
  const ended = text.endsWith("\n") ? pieces.length : pieces.length - 1;
  return pieces.map((line, i) => (i < ended && line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** Codex's `ParseError`, worded as Codex displays it: thrown where Rust returns `Err(…)?`, and turned
 * back into a value by `parseCodexPatch`. */
class PatchError extends Error {}

const invalidPatch = (message: string) => new PatchError(`invalid patch: ${message}`);
const FIRST_LINE_ERROR = "The first line of the patch must be '*** Begin Patch'";
const LAST_LINE_ERROR = "The last line of the patch must be '*** End Patch'";

function invalidHunk(message: string, line: number): PatchError {
  return new PatchError(`invalid hunk at line ${line}, ${message}`);
}

const notAHeader = (trimmed: string, line: number) =>
  invalidHunk(
    `'${trimmed}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    line,
  );

const unexpectedUpdateLine = (line: string, number: number) =>
  invalidHunk(
    `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
    number,
  );

/** parser.rs `check_start_and_end_lines_strict`. */
function checkBoundaries(lines: string[]): void {
  const first = lines[0] === undefined ? undefined : rustTrim(lines[0]);
  const last = lines.at(-1) === undefined ? undefined : rustTrim(lines.at(-1)!);
  if (first === BEGIN_PATCH && last === END_PATCH) return;
  if (first !== undefined && first !== BEGIN_PATCH) throw invalidPatch(FIRST_LINE_ERROR);
  throw invalidPatch(LAST_LINE_ERROR);
}

/** parser.rs `check_patch_boundaries_lenient`: the patch, or the patch inside a `<<EOF` heredoc. */
function patchLines(lines: string[]): string[] {
  try {
    checkBoundaries(lines);
    return lines;
  } catch (error) {
    const first = lines[0];
    const last = lines.at(-1);
    if (lines.length < 4 || first === undefined || last === undefined) throw error;
    if (!HEREDOC_OPENERS.has(first) || !last.endsWith("EOF")) throw error;
    const inner = lines.slice(1, -1);
    checkBoundaries(inner);
    return inner;
  }
}

interface Chunk {
  old: number;
  new: number;
  endOfFile: boolean;
}

type Hunk =
  | { kind: "add"; path: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo: string | null; chunks: Chunk[] };

type Mode = "not-started" | "started" | "add" | "delete" | "update" | "ended";

/** Which side of the chunk an update line belongs to: an empty line is context. */
function diffLineKind(line: string): "both" | "new" | "old" | null {
  if (line === "" || line.startsWith(" ")) return "both";
  if (line.startsWith("+")) return "new";
  return line.startsWith("-") ? "old" : null;
}

/** streaming_parser.rs `StreamingPatchParser`, fed the whole patch at once (`push_delta` + `finish`). */
class StreamingParser {
  private mode: Mode = "not-started";
  private updateHeaderLine = 0;
  private lineNumber = 0;
  readonly hunks: Hunk[] = [];
  environmentId: string | null = null;
  readonly versionSensitive: string[] = [];

  run(patch: string): void {
    const pieces = patch.split("\n");
    const rest = pieces.pop()!;
    for (const piece of pieces) {
      this.lineNumber++;
      this.processLine(piece.endsWith("\r") ? piece.slice(0, -1) : piece);
    }
    if (rest !== "") {
      this.lineNumber++;
      if (rustTrim(rest) === END_PATCH) {
        this.ensureUpdateHunkIsNotEmpty(END_PATCH);
        this.mode = "ended";
      } else this.processLine(rest);
    }
    if (this.mode !== "ended") throw invalidPatch(LAST_LINE_ERROR);
  }

  private lastUpdate(): Extract<Hunk, { kind: "update" }> | null {
    const last = this.hunks.at(-1);
    return last?.kind === "update" ? last : null;
  }

  private ensureUpdateHunkIsNotEmpty(line: string): void {
    const update = this.lastUpdate();
    if (!update) return;
    if (update.chunks.length === 0 && this.mode === "update") {
      throw invalidHunk(`Update file hunk for path '${update.path}' is empty`, this.updateHeaderLine);
    }
    const chunk = update.chunks.at(-1);
    if (chunk && chunk.old === 0 && chunk.new === 0) {
      if (line === END_PATCH) throw invalidHunk("Update hunk does not contain any lines", this.lineNumber);
      throw unexpectedUpdateLine(line, this.lineNumber);
    }
  }

  private headerOrEnd(text: string): boolean {
    if (this.mode === "started" && text.startsWith(ENVIRONMENT_ID)) {
      if (this.environmentId !== null)
        throw invalidPatch("apply_patch environment_id cannot be specified more than once");
      const id = rustTrim(text.slice(ENVIRONMENT_ID.length));
      if (id === "") throw invalidPatch("apply_patch environment_id cannot be empty");
      this.environmentId = id;
      return true;
    }
    if (text === END_PATCH) {
      this.ensureUpdateHunkIsNotEmpty(text);
      this.mode = "ended";
      return true;
    }
    for (const [marker, kind] of [
      [ADD_FILE, "add"],
      [DELETE_FILE, "delete"],
      [UPDATE_FILE, "update"],
    ] as const) {
      if (!text.startsWith(marker)) continue;
      this.ensureUpdateHunkIsNotEmpty(text);
      const path = text.slice(marker.length);
      this.hunks.push(kind === "update" ? { kind, path, moveTo: null, chunks: [] } : { kind, path });
      if (kind === "update") this.updateHeaderLine = this.lineNumber;
      this.mode = kind;
      return true;
    }
    return false;
  }

  private processLine(line: string): void {
    const trimmed = rustTrim(line);
    switch (this.mode) {
      case "not-started":
        if (trimmed === BEGIN_PATCH) this.mode = "started";
        else throw invalidPatch(FIRST_LINE_ERROR);
        return;
      case "started":
      case "delete":
        if (!this.headerOrEnd(trimmed)) throw notAHeader(trimmed, this.lineNumber);
        return;
      case "add":
        if (this.headerOrEnd(trimmed) || line.startsWith("+")) return;
        throw notAHeader(trimmed, this.lineNumber);
      case "update":
        this.updateLine(line);
        return;
      case "ended":
        if (trimmed !== "") throw invalidPatch(LAST_LINE_ERROR);
    }
  }

  private updateLine(line: string): void {
    const text = rustTrimEnd(line);
    if (this.headerOrEnd(text)) return;
    // Codex before the streaming parser trimmed these too and took them for the next hunk's header.
    if (HUNK_HEADERS.some((marker) => rustTrim(line).startsWith(marker)))
      this.versionSensitive.push(`line ${this.lineNumber} is an indented header inside an update`);
    const update = this.lastUpdate()!;
    const { chunks } = update;
    const last = chunks.at(-1);
    const lastIsEmpty = last !== undefined && last.old === 0 && last.new === 0;
    if (last?.endOfFile) {
      if (text === "") return;
      if (text !== EMPTY_CHANGE_CONTEXT && !text.startsWith(CHANGE_CONTEXT)) {
        throw invalidHunk(
          `Expected update hunk to start with a @@ context marker, got: '${line}'`,
          this.lineNumber,
        );
      }
    }
    if (chunks.length === 0 && update.moveTo === null && text.startsWith(MOVE_TO)) {
      // Codex before the streaming parser kept the padding after the destination.
      if (text !== line) this.versionSensitive.push(`line ${this.lineNumber} pads a move's destination`);
      update.moveTo = text.slice(MOVE_TO.length);
      return;
    }
    const isContext = text === EMPTY_CHANGE_CONTEXT || text.startsWith(CHANGE_CONTEXT);
    if (isContext && lastIsEmpty) throw unexpectedUpdateLine(line, this.lineNumber);
    if (isContext) {
      chunks.push({ old: 0, new: 0, endOfFile: false });
      return;
    }
    if (text === END_OF_FILE) {
      if (lastIsEmpty) throw invalidHunk("Update hunk does not contain any lines", this.lineNumber);
      if (last) last.endOfFile = true;
      return;
    }
    const diff = diffLineKind(line);
    if (diff) {
      if (chunks.length === 0) chunks.push({ old: 0, new: 0, endOfFile: false });
      const chunk = chunks.at(-1)!;
      if (diff !== "new") chunk.old++;
      if (diff !== "old") chunk.new++;
      return;
    }
    if (last && !lastIsEmpty) {
      throw invalidHunk(
        `Expected update hunk to start with a @@ context marker, got: '${line}'`,
        this.lineNumber,
      );
    }
    throw unexpectedUpdateLine(line, this.lineNumber);
  }
}

/** Codex's `parse_patch` (lenient mode, as every Codex call site uses it). */
export function parseCodexPatch(text: string): CodexPatchParse {
  try {
    const lines = patchLines(rustLines(rustTrim(text)));
    const parser = new StreamingParser();
    parser.run(lines.join("\n"));
    const operations = parser.hunks.map((h): PatchOperation =>
      h.kind === "update" && h.moveTo !== null
        ? { kind: h.kind, path: h.path, moveTo: h.moveTo }
        : { kind: h.kind, path: h.path },
    );
    const versionSensitive = [...parser.versionSensitive];
    // One `\r` before `\n` went with the split; the rest are stripped one way here, another way elsewhere.
    if (lines.some((line) => line.includes("\r")))
      versionSensitive.push("a carriage return that does not end a line");
    return { ok: true, operations, environmentId: parser.environmentId, versionSensitive };
  } catch (error) {
    if (error instanceof PatchError) return { ok: false, error: error.message };
    throw error;
  }
}

// A path Gatehouse reads the same way under any whitespace or normalisation rule: letters, marks,
// digits, punctuation, symbols and inner spaces. Not: control characters (`\t`, `\r`, NEL…, which
// Codex drops from some paths), other spaces and separators (NBSP, U+2028/2029, em-space…), format
// characters (BOM, zero-width, bidi controls), private or unassigned code points.
const PLAIN_PATH =
  /^[\p{L}\p{M}\p{N}\p{P}\p{S}](?:[\p{L}\p{M}\p{N}\p{P}\p{S} ]*[\p{L}\p{M}\p{N}\p{P}\p{S}])?$/u;

/** Characters a person cannot see, named: `U+0085 U+00A0`. */
function codePoints(text: string): string {
  return [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ");
}

function doubtfulPath(path: string): string | null {
  if (PLAIN_PATH.test(path)) return null;
  const odd = [...path].filter((c) => c !== " " && !PLAIN_PATH.test(c));
  const what = odd.length > 0 ? codePoints(odd.join("")) : "spaces at its ends";
  return `the path ${JSON.stringify(path)} has characters Gatehouse does not accept in a file name (${what}): control characters, unusual spaces, line separators and invisible characters are not read`;
}

/**
 * The patch on the positive model: the files it touches when Codex would apply it and Gatehouse is
 * sure to read it as Codex does; otherwise why not (the hook then needs a person).
 */
export function readCodexPatch(text: string): PatchReading {
  const parsed = parseCodexPatch(text);
  if (!parsed.ok) return { ok: false, reason: `Codex would reject this patch (${parsed.error})` };
  if (parsed.environmentId !== null)
    return {
      ok: false,
      reason: `the patch names an environment (${JSON.stringify(parsed.environmentId)}), so where it applies is not known`,
    };
  if (parsed.versionSensitive.length > 0)
    return {
      ok: false,
      reason: `Codex versions read the patch differently (${parsed.versionSensitive.join("; ")})`,
    };
  if (parsed.operations.length === 0) return { ok: false, reason: "the patch names no file" };
  for (const op of parsed.operations) {
    for (const path of op.moveTo === undefined ? [op.path] : [op.path, op.moveTo]) {
      const doubt = doubtfulPath(path);
      if (doubt) return { ok: false, reason: doubt };
    }
  }
  return { ok: true, operations: parsed.operations };
}

/** What Codex does with a shell command that mentions its apply_patch (invocation.rs). */
export type ShellPatch =
  /** It does not: the command is a command. */
  | { kind: "none" }
  /** Codex applies the heredoc's patch itself, from `cd` (relative to the command's folder) when given. */
  | { kind: "patch"; patch: string; cd: string | null }
  /** Codex may apply a patch itself, or the shell may run Codex's apply_patch helper: not read here. */
  | { kind: "unsure"; reason: string };

// `apply_patch` / `applypatch` as a word (any case: a case-insensitive volume finds the helper too).
const APPLY_PATCH_WORD = /(?<![A-Za-z0-9_])apply_?patch(?![A-Za-z0-9_])/i;
// The forms read here, all of which Codex intercepts (checked with the real CLI): the whole command is
// `[cd DIR && ]apply_patch <<DELIM`, the patch, then DELIM. DIR is a plain word; DELIM a name.
const DELIMITER = "[A-Za-z_][A-Za-z0-9_]*";
const HEREDOC_START = new RegExp(
  `^(?:cd ([A-Za-z0-9_.][A-Za-z0-9_./-]*) && )?(?:apply_patch|applypatch) <<(?:'(${DELIMITER})'|"(${DELIMITER})"|(${DELIMITER}))$`,
);

/**
 * A shell command (exec_command's `cmd`) as Codex treats it: Codex intercepts `apply_patch <<'EOF' …`
 * (optionally after `cd DIR &&`) and applies the heredoc's patch itself instead of running the shell.
 */
export function readCodexShellPatch(command: string): ShellPatch {
  if (!APPLY_PATCH_WORD.test(command)) return { kind: "none" };
  const unsure: ShellPatch = {
    kind: "unsure",
    reason:
      "the command runs Codex's apply_patch in a form Gatehouse does not read (only `apply_patch <<'EOF'`, the patch, then `EOF`, optionally after `cd DIR &&`)",
  };
  if (command.includes("\r")) return unsure;
  const lines = command.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const start = HEREDOC_START.exec(lines[0] ?? "");
  const delimiter = start?.[2] ?? start?.[3] ?? start?.[4];
  if (!start || !delimiter || lines.length < 2 || lines.at(-1) !== delimiter) return unsure;
  const body = lines.slice(1, -1);
  if (body.includes(delimiter)) return unsure;
  // Unquoted, a shell would expand dollars, backquotes and backslashes in the body; Codex does not.
  if (start[4] && body.some((line) => /[$`\\]/.test(line))) return unsure;
  const cd = start[1] ?? null;
  if (cd !== null && cd.split("/").includes("..")) return unsure;
  return { kind: "patch", patch: body.join("\n"), cd };
}
