// The processes of one task's agent, found the way a user would check with `ps`: every process whose
// environment carries GATEHOUSE_TASK_ID=<task id> (the agent and everything it started). Linux /proc.
import { readdirSync, readFileSync } from "node:fs";

export const HAVE_PROC = process.platform === "linux";

/** Live (not zombie) pids whose environment has GATEHOUSE_TASK_ID=<taskId>. */
export function taskProcesses(taskId: string | number): number[] {
  const wanted = `GATEHOUSE_TASK_ID=${taskId}`;
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1").split("\0");
      if (!environ.includes(wanted)) continue;
      if (isZombie(Number(name))) continue;
      pids.push(Number(name));
    } catch {
      // gone already, or not ours
    }
  }
  return pids;
}

export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Pids of the list that still run. */
export function alive(pids: number[]): number[] {
  return pids.filter((pid) => !isZombie(pid));
}

/** The command line of a pid (for messages). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}
