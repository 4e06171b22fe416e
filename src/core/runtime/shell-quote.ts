// Claude Code runs hook commands through a POSIX shell (bash, also on Windows), so the hook command
// line is built with POSIX quoting: safe words bare, anything else in single quotes.
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function posixQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function posixCommandLine(argv: string[]): string {
  return argv.map(posixQuote).join(" ");
}
