// Processes a test starts but does not wait for (a command's background child, a grandchild a
// timeout must kill): asking whether one still runs, and making sure none outlives its test.

/**
 * Whether `pid` still exists, by the kernel's answer to signal 0. An unreaped zombie counts as
 * alive; the processes these tests watch are orphans that init reaps at once.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs `pid` if it still exists: cleanup after a test that expected it to be gone already. */
export function killIfAlive(pid: number): void {
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

/**
 * The pids a file's tests leave running on purpose (a `sleep 1000 &` that outlives its command);
 * the file's afterEach calls killAll so a failing test leaves nothing behind for the next.
 */
export class LeftoverProcesses {
  readonly #pids: number[] = [];

  add(pid: number): void {
    this.#pids.push(pid);
  }

  /** SIGKILLs every added pid that still exists, and forgets them all. */
  killAll(): void {
    for (const pid of this.#pids.splice(0)) killIfAlive(pid);
  }
}
