// Shorthands for the option tables of the tool table (tool-*.ts), so every table says the same thing the
// same way: an option is a plain flag, takes a value that is data, or does something that needs a person.
import type { OptionSpec } from "./option-scan.js";

/** An option without a value. */
export const flag: OptionSpec = {};

/** An option whose value is data. */
export const valued: OptionSpec = { value: true };

/** An option whose value the tool runs, loads or acts on (a tool-option flag; `{}` is the value). */
export const actsOnValue = (detail: string): OptionSpec => ({
  value: true,
  effect: { kind: "tool-option", detail },
});

/** An option whose value is a file the tool writes (fine for /dev/null & co.). */
export const writesValue = (detail: string): OptionSpec => ({
  value: true,
  writesValue: true,
  effect: { kind: "tool-option", detail },
});

/** An option without a value that makes the tool act beyond its plain job. */
export const acts = (detail: string): OptionSpec => ({ effect: { kind: "tool-option", detail } });

/** Single-letter flags, from a string of letters. */
export const flagsOf = (letters: string): Record<string, OptionSpec> =>
  Object.fromEntries([...letters].map((l) => [l, flag]));

/** Long flags by name. */
export const longFlags = (names: readonly string[]): Record<string, OptionSpec> =>
  Object.fromEntries(names.map((n) => [n, flag]));

/** Options (long or short) whose values are data. */
export const valuesOf = (names: readonly string[]): Record<string, OptionSpec> =>
  Object.fromEntries(names.map((n) => [n, valued]));
