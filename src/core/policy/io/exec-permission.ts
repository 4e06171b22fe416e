// Whether this process may run a file, as the kernel decides it (exec-policy.md "Resolving
// executables"). The shells ask the kernel: bash's PATH search uses eaccess(), zsh's access(), dash
// tries execve() folder by folder. The mode bits alone disagree with the kernel for a file an ACL
// opens or closes to this user, or one on a `noexec` mount, and then Gatehouse and the shell would
// pick different files on PATH: Gatehouse would judge one program while the shell runs another. So
// the answer is access(X_OK).
// That is one more call per program found; its answer is remembered per path while the file is
// provably unchanged since it was asked: the same device, inode, mode, owner, group and ctime (a
// chmod, chown or ACL change sets ctime), and only when that ctime was over GRANULARITY_MS old when
// asked, so a later change cannot carry the same timestamp (the racily-clean rule, core/io/racily-clean.ts),
// and while the wall clock has not been set. What is not seen: a filesystem remounted `noexec` under
// an unchanged file (that takes root).
import fs from "node:fs";
import { clockOffset, clockUnsetSince, settledBefore } from "../../io/racily-clean.js";

interface Answer {
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  ctimeMs: number;
  executable: boolean;
  clockOffset: number;
}

const MAX_ANSWERS = 4096;
const answers = new Map<string, Answer>();

/** Whether `file` (whose stat, links followed, is `stat`) may be executed by this process now. */
export function mayExecute(file: string, stat: fs.Stats): boolean {
  const known = answers.get(file);
  if (
    known &&
    known.dev === stat.dev &&
    known.ino === stat.ino &&
    known.mode === stat.mode &&
    known.uid === stat.uid &&
    known.gid === stat.gid &&
    known.ctimeMs === stat.ctimeMs &&
    clockUnsetSince(known.clockOffset)
  ) {
    return known.executable;
  }
  if (known) answers.delete(file);
  const askedAt = Date.now();
  const executable = kernelSaysExecutable(file);
  if (settledBefore(stat.ctimeMs, askedAt)) {
    if (answers.size >= MAX_ANSWERS) answers.delete(answers.keys().next().value!);
    answers.set(file, {
      dev: stat.dev,
      ino: stat.ino,
      mode: stat.mode,
      uid: stat.uid,
      gid: stat.gid,
      ctimeMs: stat.ctimeMs,
      executable,
      clockOffset: clockOffset(),
    });
  }
  return executable;
}

/** Whether an answer for `file` is remembered (tests make it so before they attack it). */
export function rememberedExecPermission(file: string): boolean {
  return answers.has(file);
}

function kernelSaysExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
