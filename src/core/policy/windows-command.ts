// cmd.exe and PowerShell command lines are analysed conservatively (exec-policy.md, and the brief):
// one simple command split on whitespace with plain quotes is understood; anything with an operator,
// an expansion or a line break is `complex-windows` and needs a person.
import type { Arg } from "./command-rules.js";

export type WindowsSplit = { ok: true; args: Arg[] } | { ok: false; reason: string };

const SPECIAL = /[&|;<>^%!$()`\r\n]/;

export function splitWindowsCommand(text: string, shell: "cmd" | "powershell"): WindowsSplit {
  const special = SPECIAL.exec(text);
  if (special) {
    const what = special[0] === "\n" || special[0] === "\r" ? "a line break" : `"${special[0]}"`;
    return {
      ok: false,
      reason: `the ${shell} command line has ${what}; only a single simple command is analysed`,
    };
  }
  const quotes = shell === "powershell" ? "\"'" : '"';
  const args: Arg[] = [];
  let current = "";
  let inWord = false;
  let quote: string | null = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
      else current += c;
      continue;
    }
    if (quotes.includes(c)) {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === " " || c === "\t") {
      if (inWord) args.push({ value: current, literal: true });
      current = "";
      inWord = false;
      continue;
    }
    if (shell === "cmd" && (c === "*" || c === "?")) {
      return { ok: false, reason: `the cmd command line has "${c}"; wildcards are not analysed` };
    }
    current += c;
    inWord = true;
  }
  if (quote) return { ok: false, reason: `the ${shell} command line has an unclosed quote` };
  if (inWord) args.push({ value: current, literal: true });
  return { ok: true, args };
}
