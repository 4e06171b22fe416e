// How a command is shown to people (audit log, events, prompts): a shell string as written, an argv
// quoted so that pasting it into a POSIX shell runs the same words.
import type { CommandInput } from "../core/policy/types.js";

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function quoteWord(word: string): string {
  if (word === "") return "''";
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function displayCommand(command: CommandInput): string {
  if (command.argv) return command.argv.map(quoteWord).join(" ");
  return command.command ?? "";
}
