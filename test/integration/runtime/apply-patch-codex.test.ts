// The port of Codex's apply_patch grammar against the real Codex (the pinned codex-cli's native binary,
// run standalone through its arg0 dispatch), as uid 65534 in a temp folder that user owns. Random patches
// mix ordinary hunks with what tripped the old reader (Unicode whitespace around headers, separators, BOM
// and `\r` in paths, CRLF, moves, heredoc wrappers, an environment line, a second End Patch). For each:
// the port rejects exactly the patches Codex rejects, with Codex's own message; and when the port
// understands a patch, the files Codex touched (folder tree listed before and after) are exactly the
// paths the port reports. Set CODEX_APPLY_PATCH_BIN to check another Codex build (0.169.0 passes too).
import fs from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCodexPatch, readCodexPatch } from "../../../src/core/policy/apply-patch-grammar.js";
import {
  applyAsOtherUser,
  codexNativeBinary,
  patchSandbox,
  type PatchSandbox,
} from "../../support/codex-apply-patch.js";
import { otherUserUnavailable } from "../../support/other-user.js";
import { ORDINARY_PATCHES } from "../../fixtures/policy/ordinary-patches.js";
import { patchPaths } from "../../../src/cli/hook/apply-patch.js";

const BINARY = codexNativeBinary();
const skipReason = otherUserUnavailable ?? (BINARY ? null : "the pinned Codex binary is not installed");
const RUNS = Number(process.env.APPLY_PATCH_RUNS ?? 150);

/** Picks one of `common` most of the time, else one of `rare` (unbiased: fast-check favours first choices). */
const mostly = <T>(common: readonly T[], rare: readonly T[], rareInTen = 1) =>
  fc.noBias(fc.nat(9)).chain((n) => fc.constantFrom(...(n < rareInTen ? rare : common)));

/** Existing files (relative to Codex's folder), each with lines Codex can find. */
const FILES: Record<string, string> = {
  "a.txt": "alpha\nbeta\ngamma\n",
  "b.txt": "alpha\nbeta\ngamma\n",
  "dir/c.txt": "alpha\nbeta\ngamma\n",
  "sub dir/d.txt": "alpha\nbeta\ngamma\n",
  "e\u2028.txt": "alpha\nbeta\ngamma\n",
  "f\u00a0.txt": "alpha\nbeta\ngamma\n",
  "../outside.txt": "alpha\nbeta\ngamma\n",
  "nest/inner/g.txt": "alpha\nbeta\ngamma\n",
};
/** `lnk` points at `nest/inner`: Codex collapses `lnk/..` as text, to its own folder. */
const LINKS = { lnk: "nest/inner" };
const EXISTING = Object.keys(FILES);
/** New names: ordinary ones, one level up, absolute, and every character the old reader mishandled. */
const NEW_NAMES = [
  "new1.txt",
  "dir/new2.txt",
  "deep/er/new3.txt",
  "../up.txt",
  "sp ace.txt",
  "é-ü 说明.txt",
  "./dot/../dotted.txt",
  "lnk/../via-link.txt",
  "@ROOT@/abs.txt",
  "~/tilde.txt",
  "x\u2028y.txt",
  "p\u2029q.txt",
  "n\u0085l.txt",
  "c\rr.txt",
  "t\tt.txt",
  "  lead.txt",
  "nb\u00a0sp.txt",
  "bom\ufeff.txt",
  "zw\u200b.txt",
  "em\u2003.txt",
];
/** What may pad a header line, now and then. */
const PADDING = [" ", "  ", "\t", "\u0085", "\u00a0", "\u2028", "\u3000", "\u000b", "\ufeff", "\r"];

const PLAIN_EXISTING = EXISTING.filter((name) => /^[\w ./-]+$/.test(name));
const pad = mostly([""], PADDING);
const newName = mostly(NEW_NAMES.slice(0, 9), NEW_NAMES.slice(9), 2);
const existing = mostly(PLAIN_EXISTING, EXISTING);
const padded = (text: string) => fc.tuple(pad, pad).map(([a, b]) => `${a}${text}${b}`);

const addHunk = fc.record({
  path: fc.oneof(newName, existing),
  header: fc.constant("*** Add File: "),
  lines: fc.array(fc.constantFrom("+hello", "+", "+*** Add File: not-a-header", "+\u0085x"), {
    minLength: 1,
    maxLength: 2,
  }),
});
const deleteHunk = fc.record({
  path: existing,
  header: fc.constant("*** Delete File: "),
  lines: fc.constant([]),
});
const updateHunk = fc
  .record({
    path: existing,
    move: fc.option(fc.tuple(newName, pad), { nil: undefined }),
    context: fc.constantFrom("@@", "@@ alpha", ""),
    change: fc.constantFrom(
      ["-beta", "+BETA"],
      [" alpha", "-beta", "+BETA"],
      ["-gamma", "+GAMMA", "*** End of File"],
      ["+added"],
    ),
  })
  .map(({ path: file, move, context, change }) => ({
    path: file,
    header: "*** Update File: ",
    lines: [...(move ? [`${move[1]}*** Move to: ${move[0]}`] : []), ...(context ? [context] : []), ...change],
  }));

/** A patch of hunks on distinct files, with now and then a construct Codex reads its own way. */
const patchText = fc
  .record({
    hunks: fc.uniqueArray(fc.oneof(addHunk, deleteHunk, updateHunk), {
      minLength: 1,
      maxLength: 4,
      selector: (h) => h.path,
    }),
    headerPads: fc.array(fc.tuple(pad, pad), { minLength: 4, maxLength: 4 }),
    begin: padded("*** Begin Patch"),
    end: padded("*** End Patch"),
    newline: mostly(["\n"], ["\r\n"], 2),
    wrapper: mostly(["none"], ["heredoc", "spaces", "nel"]),
    extra: mostly(["none"], ["blank", "environment", "end-twice", "lowercase", "indented"], 2),
  })
  .map(({ hunks, headerPads, begin, end, newline, wrapper, extra }) => {
    const lines = [begin];
    if (extra === "environment") lines.push("*** Environment ID: remote");
    hunks.forEach((hunk, i) => {
      const [before, after] = headerPads[i]!;
      const header = extra === "lowercase" && i === 0 ? hunk.header.toLowerCase() : hunk.header;
      lines.push(
        `${extra === "indented" && i > 0 ? " " : ""}${before}${header}${hunk.path}${after}`,
        ...hunk.lines,
      );
      if (extra === "blank") lines.push("");
    });
    if (extra === "end-twice") lines.push("*** End Patch", "*** Delete File: b.txt");
    lines.push(end);
    const text = lines.join(newline);
    if (wrapper === "heredoc") return `<<'EOF'\n${text}\nEOF\n`;
    if (wrapper === "spaces") return ` \n${text}\n\n`;
    return wrapper === "nel" ? `\u0085${text}\u2029` : text;
  });

/** Codex's standalone error line for the port's parse error (lib.rs `apply_patch`). */
function codexErrorLine(error: string): string {
  const hunk = /^invalid hunk at line (\d+), ([\s\S]*)$/.exec(error);
  return hunk
    ? `Invalid patch hunk on line ${hunk[1]}: ${hunk[2]}`
    : error.replace(/^invalid patch: /, "Invalid patch: ");
}

/** Everything a path the port reports may change: the file, and folders Codex creates on the way. */
function sandboxKeys(sandbox: PatchSandbox, file: string): string[] {
  const absolute = path.resolve(sandbox.work, file);
  const keys = [];
  for (let p = absolute; p.startsWith(`${sandbox.root}/`); p = path.dirname(p))
    keys.push(path.relative(sandbox.root, p));
  return keys;
}

describe.skipIf(skipReason !== null)(
  `Codex's apply_patch and the port agree${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    it(
      "random patches: Codex rejects exactly what the port rejects, and touches exactly the files the port reports",
      async () => {
        const tally = { rejected: 0, notUnderstood: 0, appliedAsReported: 0, failedApplying: 0 };
        await fc.assert(
          fc.asyncProperty(patchText, async (template) => {
            const sandbox = await patchSandbox(FILES, LINKS);
            const patch = template.replaceAll("@ROOT@", sandbox.root);
            const run = await applyAsOtherUser(BINARY!, sandbox, patch).finally(() =>
              fs.rm(sandbox.root, { recursive: true, force: true }),
            );
            const parsed = parseCodexPatch(patch);
            if (!parsed.ok) {
              tally.rejected++;
              expect(run.status).toBe(1);
              expect(run.output.trim()).toBe(codexErrorLine(parsed.error));
              expect([...run.changedFiles, ...run.changedFolders]).toEqual([]);
              return;
            }
            expect(run.output).not.toMatch(/^Invalid patch/);
            const reading = readCodexPatch(patch);
            if (!reading.ok) {
              tally.notUnderstood++;
              return;
            }
            const reported = reading.operations.flatMap((op) =>
              op.moveTo === undefined ? [op.path] : [op.path, op.moveTo],
            );
            const mayChange = new Set(reported.flatMap((file) => sandboxKeys(sandbox, file)));
            const changed = [...run.changedFiles, ...run.changedFolders];
            expect(changed.filter((key) => !mayChange.has(key))).toEqual([]);
            if (run.status !== 0) {
              tally.failedApplying++; // a hunk that did not apply (a missing file); what ran is still covered
              return;
            }
            tally.appliedAsReported++;
            const files = new Set(
              reported.map((file) => path.relative(sandbox.root, path.resolve(sandbox.work, file))),
            );
            expect(new Set(run.changedFiles)).toEqual(files);
          }),
          { numRuns: RUNS },
        );
        console.log(`apply_patch port vs Codex over ${RUNS} patches: ${JSON.stringify(tally)}`);
        // The runs must exercise both sides: patches Codex applies, and patches the port refuses.
        expect(tally.appliedAsReported).toBeGreaterThan(RUNS / 10);
        expect(tally.rejected + tally.notUnderstood).toBeGreaterThan(RUNS / 10);
      },
      Math.max(120_000, RUNS * 1000),
    );
    it("each ordinary patch applies and touches exactly the files the port reports", async () => {
      for (const ordinary of ORDINARY_PATCHES) {
        const sandbox = await patchSandbox(ordinary.before);
        const run = await applyAsOtherUser(BINARY!, sandbox, ordinary.patch).finally(() =>
          fs.rm(sandbox.root, { recursive: true, force: true }),
        );
        const reading = readCodexPatch(ordinary.patch);
        expect(run.status, `${ordinary.what}: ${run.output}`).toBe(0);
        expect(reading.ok && patchPaths(reading.operations)).toEqual(ordinary.writes);
        expect(run.changedFiles.sort()).toEqual(ordinary.writes.map((file) => `work/${file}`).sort());
      }
    }, 60_000);
    it("the attacks are real: Codex writes outside its folder where the old reader saw nothing, and the port sees it", async () => {
      const attacks = [
        ["a NEL before a header", "*** Add File: ok.txt\n+x\n\u0085*** Add File: ../marker-nel\n+x"],
        ["a line separator in a path", "*** Add File: ../marker-ls\u2028x\n+x"],
        ["a paragraph separator in a path", "*** Add File: ../marker-ps\u2029x\n+x"],
        ["a carriage return in a path", "*** Add File: ../marker-cr\rx\n+x"],
        ["a NEL before a delete", "*** Add File: ok.txt\n+x\n\u0085*** Delete File: ../outside.txt"],
      ] as const;
      for (const [what, hunks] of attacks) {
        const patch = `*** Begin Patch\n${hunks}\n*** End Patch\n`;
        const sandbox = await patchSandbox(FILES);
        const run = await applyAsOtherUser(BINARY!, sandbox, patch).finally(() =>
          fs.rm(sandbox.root, { recursive: true, force: true }),
        );
        const outside = run.changedFiles.filter((key) => !key.startsWith("work/"));
        expect(outside, `${what}: Codex wrote outside its folder`).toHaveLength(1);
        const escaped = (file: string) =>
          path.relative(sandbox.root, path.resolve(sandbox.work, file)) === outside[0];
        expect(looseReaderBeforeIssue27(patch).some(escaped), `${what}: the old reader missed it`).toBe(
          false,
        );
        const reading = readCodexPatch(patch);
        if (reading.ok) expect(patchPaths(reading.operations).some(escaped), what).toBe(true);
      }
    }, 60_000);
  },
);

/** The hook's reader before issue 27 (JavaScript's `\s`, lines split on `\r?\n`): shows what it missed. */
function looseReaderBeforeIssue27(patch: string): string[] {
  const header = /^\s*\*\*\*\s*(?:add file|delete file|update file|move to)\s*:\s*(.*?)\s*$/i;
  return patch.split(/\r?\n/).flatMap((line) => header.exec(line)?.[1] ?? []);
}
