// The process table, to end an agent's whole tree. Process groups alone are not enough: Claude Code
// starts each Bash command in a process group of its own and leaves it running when it is itself
// terminated (claude 2.1.197), so a cancel walks the parent links from the agent first, while they
// still exist, and then signals every group and process it found. Linux reads /proc; macOS and the
// other POSIX systems ask `ps`. Windows is left to `taskkill /T` (kill-tree.ts).
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** A zombie has exited and only waits for its parent to reap it. */
  zombie: boolean;
}

function readProcLinux(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ")".
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        zombie: fields[0] === "Z",
      });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

function readPs(): Promise<ProcessInfo[]> {
  return new Promise((resolve) => {
    execFile("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat="], { timeout: 5_000 }, (error, stdout) => {
      if (error) return resolve([]);
      const out: ProcessInfo[] = [];
      for (const line of stdout.split("\n")) {
        const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
        if (!pid || !ppid || !pgid) continue;
        out.push({
          pid: Number(pid),
          ppid: Number(ppid),
          pgid: Number(pgid),
          zombie: (stat ?? "").startsWith("Z"),
        });
      }
      resolve(out);
    });
  });
}

export async function readProcessTable(platform: NodeJS.Platform = process.platform): Promise<ProcessInfo[]> {
  if (platform === "win32") return [];
  if (platform === "linux") return readProcLinux();
  return readPs();
}

/** The processes below `roots` (children, grandchildren, …) in the table, roots included when present. */
export function processTree(roots: Iterable<number>, table: readonly ProcessInfo[]): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  const byPid = new Map<number, ProcessInfo>();
  for (const info of table) {
    byPid.set(info.pid, info);
    const list = children.get(info.ppid) ?? [];
    list.push(info);
    children.set(info.ppid, list);
  }
  const seen = new Set<number>();
  const out: ProcessInfo[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const info = byPid.get(pid);
    if (info) out.push(info);
    for (const child of children.get(pid) ?? []) stack.push(child.pid);
  }
  return out;
}

/**
 * Linux: pids whose environment holds `entry` (`NAME=value`). Every process an agent starts inherits
 * its environment, so this also finds what left the tree (double-forked daemons, orphans of a shell
 * that already exited). Elsewhere: none (the parent links have to do).
 */
export function processesWithEnv(entry: string, platform: NodeJS.Platform = process.platform): number[] {
  if (platform !== "linux") return [];
  const out: number[] = [];
  const needle = Buffer.from(`\0${entry}\0`);
  const first = Buffer.from(`${entry}\0`);
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`);
      if (environ.includes(needle) || environ.subarray(0, first.length).equals(first)) out.push(Number(name));
    } catch {
      // gone, or another user's process
    }
  }
  return out;
}
