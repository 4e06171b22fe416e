// A reader of GNU sed scripts that says what a script does beyond editing the stream: `e` (and the `s///e`
// flag) runs commands, `w`/`W` (and `s///w`) write files. Positive model: a script the reader does not
// fully follow is not understood, so the command needs a person. `r`/`R` only read.

/** `reads`: the files the script's `r`/`R` commands read (taken as written: sed expands nothing). */
export type SedVerdict = { ok: true; effects: string[]; reads: string[] } | { ok: false; why: string };

const SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "l", "n", "N", "p", "P", "x", "z", "F", "}"]);

export function readSedScript(script: string): SedVerdict {
  const effects: string[] = [];
  const reads: string[] = [];
  let i = 0;
  const n = script.length;
  const fail = (why: string): SedVerdict => ({ ok: false, why: `sed script not understood: ${why}` });
  const skipBlanks = (newlines: boolean) => {
    while (
      i < n &&
      (script[i] === " " || script[i] === "\t" || (newlines && (script[i] === "\n" || script[i] === ";")))
    )
      i++;
  };
  /** A delimited part (`/re/`, `\cREc`, `s` pieces): returns false when it does not end. */
  const delimited = (delim: string): boolean => {
    while (i < n) {
      const c = script[i] as string;
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "\n" && delim !== "\n") return false;
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const toLineEnd = (): string => {
    const start = i;
    while (i < n && script[i] !== "\n") i++;
    return script.slice(start, i);
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i] as string)) i++;
      return true;
    }
    if (c === "$") {
      i++;
      return true;
    }
    if (c === "/" || c === "\\") {
      const delim = c === "/" ? "/" : script[i + 1];
      i += c === "/" ? 1 : 2;
      if (delim === undefined || !delimited(delim)) return false;
      while (i < n && /[IM]/.test(script[i] as string)) i++;
      return true;
    }
    return true;
  };

  while (i < n) {
    skipBlanks(true);
    if (i >= n) break;
    if (script[i] === "#") {
      toLineEnd();
      continue;
    }
    if (!address()) return fail("an address does not end");
    if (script[i] === ",") {
      i++;
      if (script[i] === "+" || script[i] === "~") i++;
      if (!address()) return fail("an address does not end");
    }
    skipBlanks(false);
    if (script[i] === "!") {
      i++;
      skipBlanks(false);
    }
    const cmd = script[i];
    if (cmd === undefined) return fail("an address without a command");
    i++;
    if (cmd === "{" || SIMPLE.has(cmd)) continue;
    if (cmd === "q" || cmd === "Q" || cmd === "L" || cmd === "l") {
      skipBlanks(false);
      while (i < n && /[0-9]/.test(script[i] as string)) i++;
      continue;
    }
    if (cmd === ":" || cmd === "b" || cmd === "t" || cmd === "T") {
      // a label runs to the end of the line or a `;`
      while (i < n && script[i] !== "\n" && script[i] !== ";") i++;
      continue;
    }
    if (cmd === "a" || cmd === "i" || cmd === "c") {
      // text to the end of the line; a backslash-newline continues it
      while (i < n) {
        if (script[i] === "\\") {
          i += 2;
          continue;
        }
        if (script[i] === "\n") break;
        i++;
      }
      continue;
    }
    if (cmd === "r" || cmd === "R") {
      const file = toLineEnd().trim();
      if (file !== "" && file !== "/dev/stdin") reads.push(file);
      continue;
    }
    if (cmd === "w" || cmd === "W") {
      const file = toLineEnd().trim();
      if (file !== "/dev/stdout" && file !== "/dev/stderr")
        effects.push(`sed's ${cmd} command writes to ${file}`);
      continue;
    }
    if (cmd === "e") {
      effects.push(`sed's e command runs ${toLineEnd().trim() || "the pattern space"} as a shell command`);
      continue;
    }
    if (cmd === "y" || cmd === "s") {
      const delim = script[i];
      if (delim === undefined || delim === "\n" || delim === "\\") return fail(`${cmd} without a delimiter`);
      i++;
      if (!delimited(delim) || !delimited(delim)) return fail(`${cmd} command does not end`);
      if (cmd === "y") continue;
      // flags
      while (i < n && /[gpiImMe0-9w]/.test(script[i] as string)) {
        const flag = script[i] as string;
        i++;
        if (flag === "e") effects.push("sed's s///e flag runs the result as a shell command");
        if (flag === "w") {
          const file = toLineEnd().trim();
          if (file !== "/dev/stdout" && file !== "/dev/stderr")
            effects.push(`sed's s///w flag writes to ${file}`);
          break;
        }
      }
      continue;
    }
    return fail(`the command ${JSON.stringify(cmd)}`);
  }
  return { ok: true, effects, reads };
}
