// Random tool path arguments over the jail's tree: `..`, `.`, `~`, links, letter-case and Unicode
// variants, doubled separators, and (for Claude Code, which trims) Unicode spaces around them. Each
// names a new file `f<n>.txt` so where it landed can be found afterwards.
import fc from "fast-check";
import type { Jail } from "./jail.js";

/** The seed of this run's paths (set GH_PATH_SEED to replay one). */
export const PATH_SEED = Number(process.env.GH_PATH_SEED ?? Date.now() % 2 ** 31);

const SEGMENTS = [
  "a",
  "A",
  "deep",
  "up",
  "sib",
  "..",
  "..",
  ".",
  "new",
  "x y",
  "caf\u00e9",
  "cafe\u0301",
  "~",
  "",
];
const SPACES = ["", "", "", " ", "\u2003", "\ufeff", "\u00a0", "\u3000", "\n", "\t", "\u2028"];

export interface RandomPath {
  n: number;
  raw: string;
}

/** A path argument in three parts: spaces before, the path up to its file name, spaces after. */
function arbitraryPath(jail: Jail, trimmed: boolean): fc.Arbitrary<[string, string, string]> {
  const start = fc.constantFrom(
    "",
    "./",
    "~/",
    "~",
    `${jail.work}/`,
    `${jail.home}/`,
    `${jail.work}/deep/../`,
  );
  const segments = fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 4 });
  const separator = fc.constantFrom("/", "/", "/", "//");
  const space = trimmed ? fc.constantFrom(...SPACES) : fc.constant("");
  return fc
    .tuple(space, start, segments, separator, space)
    .map(([lead, first, names, sep, trail]) => [
      lead,
      `${first}${names.map((s) => `${s}${sep}`).join("")}`,
      trail,
    ]);
}

/**
 * `count` random paths, each ending in its own file name. `trimmed`: the runtime trims the argument,
 * so spaces may surround it.
 */
export function randomPaths(
  jail: Jail,
  count: number,
  options: { trimmed: boolean; seed: number },
): RandomPath[] {
  return fc
    .sample(arbitraryPath(jail, options.trimmed), { numRuns: count, seed: options.seed })
    .map(([lead, body, trail], n) => ({ n, raw: `${lead}${body}f${n}.txt${trail}` }));
}
