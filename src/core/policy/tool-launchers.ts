// Programs whose job includes starting another program named in their arguments, outside the
// dispatch wrappers Gatehouse unwraps (tool-wrappers.ts) and the runners it reads (tool-runners.ts):
// `unshare touch x`, `perf stat make`, `xvfb-run npm test`, `tmux new 'cmd'`, `su -c 'cmd'`… Found by
// running attacks with the launcher alone on the allowlist: the program it started ran, covered by
// nobody. What they start is not read here (their option syntaxes and shell strings vary), so a
// launcher call is a tool option (with no arguments most start a shell): a person decides, or an entry
// whose argPattern matches the exact arguments covers it. `sudo` and `doas` stay commands of their own (exec-policy.md).
import type { Arg } from "./option-scan.js";
import { addEffects, emptyReading, type ToolReading } from "./tool-readings.js";

const LAUNCHERS = [
  // namespaces, privileges, scheduling, personality
  "unshare",
  "nsenter",
  "prlimit",
  "setpriv",
  "runuser",
  "su",
  "sg",
  "newgrp",
  "chrt",
  "numactl",
  "setarch",
  "linux32",
  "linux64",
  "i386",
  "x86_64",
  "uname26",
  "capsh",
  "chroot",
  "fakeroot",
  "fakechroot",
  "eatmydata",
  "firejail",
  "bwrap",
  "proot",
  "pkexec",
  "gosu",
  "su-exec",
  "chpst",
  "arch",
  // tracers, profilers, benchmarks
  "valgrind",
  "perf",
  "hyperfine",
  "gdb",
  "lldb",
  "catchsegv",
  // sessions, terminals, schedulers
  "xvfb-run",
  "dbus-run-session",
  "dbus-launch",
  "ssh-agent",
  "tmux",
  "screen",
  "script",
  "expect",
  "rlwrap",
  "systemd-run",
  "start-stop-daemon",
  "daemonize",
  "run-parts",
  "launchctl",
  "at",
  "batch",
  "parallel",
  "sem",
  "entr",
  "tini",
  "dumb-init",
  "torsocks",
  "proxychains",
  "proxychains4",
] as const;

/** Launchers that, given no arguments, only print something (most others then start a shell). */
const QUIET_ALONE = new Set(["arch", "perf", "ssh-agent"]);

function readLauncher(name: string, args: readonly Arg[]): ToolReading {
  const reading = emptyReading();
  if (args.length === 1 && QUIET_ALONE.has(name)) return reading;
  const words = args.slice(1).map((a) => a.value);
  const what = words.length > 0 ? `the program in its arguments (${words.join(" ")})` : "a shell";
  addEffects(reading, [{ kind: "tool-option", detail: `${name} can start ${what}` }]);
  return reading;
}

export const LAUNCHER_READERS: Record<string, (name: string, args: readonly Arg[]) => ToolReading> =
  Object.fromEntries(LAUNCHERS.map((name) => [name, readLauncher]));
