// Kill points by step, not by time (issue 30): counts the changes a piece of code makes to the file
// system under one folder and stops it just before change number N, so a crash point replays exactly.
//
// `installFsSteps()` wraps `node:fs/promises` (the product's only way to change files: every
// capability module and `src/core/store` go through it) and the methods of its file handles.
// Inside a gate (`withStepGate`, or a process-wide gate: `kill-at-step.ts`, the child preload):
//   - every call, reads included, runs one at a time in the order it was made, so the sequence of
//     changes does not depend on which of several concurrent calls the thread pool finishes first;
//   - each change under `root` (write, open for writing, rename, unlink, rmdir, mkdir, symlink, link,
//     copyFile, chmod, truncate, utimes) is a step, unless it changes nothing (a mkdir of a folder that
//     exists, a chmod to the mode a file has, an rmdir of a folder that is not empty, an unlink of
//     nothing: a kill just before it leaves the same disk as a kill just before the next change);
//   - `rm` and `cp` of a folder are walked here with those calls, as Node's own rimraf and cp do, so
//     each entry they remove or copy is a step (Node's versions would hide them from the wrapper);
//   - before step `stopAt` the gate stops: "kill" SIGKILLs the process, so nothing after it happens;
//     "freeze" leaves that call and every later call of the gate pending forever, which leaves the
//     disk as the kill would (steps 1…N-1 done, nothing else).
// Each step keeps what it did (`replay`), so the disk at any step can be rebuilt from a recorded run
// without running the product again (capability-crash.ts `replaySteps`).
// Synchronous changes (`fs.*Sync`) are counted too; callback-style `fs` calls are not wrapped (no
// capability code uses them).
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";

export interface FsStep {
  /** 1-based. */
  n: number;
  op: string;
  /** Relative to the gate's root. */
  path: string;
  to?: string;
  /** The call threw (it changed nothing, or less than asked): replays skip it too. */
  failed?: boolean;
  /** A full disk (onStop "enospc"): the call throws this instead of changing anything. */
  injected?: NodeJS.ErrnoException;
  /** Does the change again with the original calls (in process only). */
  replay?: () => void;
}

export interface StepGateOptions {
  /** Only changes inside this folder are steps (the test's home). */
  root: string;
  /** Stop just before this step; null: never. */
  stopAt?: number | null;
  /**
   * "kill": SIGKILL this process; "freeze": every call from here on stays pending; "enospc": a full
   * disk from this step on — every later change that needs space (a write, a new file, folder or
   * link, a copy) fails with ENOSPC, while renames, unlinks and mode changes still work.
   */
  onStop?: "kill" | "freeze" | "enospc";
  /** Appends each step to this file as it is taken (a killed child's record). */
  logFile?: string;
}

const NEVER = new Promise<never>(() => undefined);

type AnyFn = (...args: unknown[]) => unknown;
const P = fs.promises as unknown as Record<string, AnyFn>;
const S = fs as unknown as Record<string, AnyFn>;
/** The calls as Node has them, captured before anything is wrapped. */
const originalSync = Object.fromEntries(
  Object.entries(S).filter(([name, fn]) => name.endsWith("Sync") && typeof fn === "function"),
) as Record<string, AnyFn>;
const original = {
  appendFileSync: fs.appendFileSync,
  rm: fs.promises.rm,
  cp: fs.promises.cp,
  lstat: fs.promises.lstat,
  stat: fs.promises.stat,
  readdir: fs.promises.readdir,
};

export class StepGate {
  readonly steps: FsStep[] = [];
  stopped = false;
  /** Settles when the gate stops. */
  readonly whenStopped: Promise<void>;
  private markStopped: () => void = () => undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly handles = new Set<fs.promises.FileHandle>();

  constructor(readonly options: StepGateOptions) {
    this.whenStopped = new Promise((resolve) => (this.markStopped = resolve));
  }

  /** Runs `task` after every call queued before it. Once stopped, nothing runs any more. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(() => (this.stopped ? NEVER : task()));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * A change to `p` (and `to`) is about to happen: records it, or stops the gate instead (returns
   * null). Changes outside the root are not steps (an empty record that is never kept).
   */
  step(op: string, p: unknown, to?: unknown): FsStep | null {
    if (this.stopped) return null;
    const inside = (x: unknown) => typeof x === "string" && isInside(path.resolve(x), this.options.root);
    if (!inside(p) && !inside(to)) return { n: 0, op, path: String(p) };
    const rel = (x: unknown) => (typeof x === "string" ? path.relative(this.options.root, x) : String(x));
    const n = this.steps.length + 1;
    const record: FsStep = { n, op, path: rel(p), ...(to !== undefined && { to: rel(to) }) };
    if (this.options.onStop === "enospc") {
      if (this.options.stopAt != null && n >= this.options.stopAt && NEEDS_SPACE.has(op)) {
        record.failed = true;
        record.injected = Object.assign(new Error(`ENOSPC: no space left on device, ${op} '${String(p)}'`), {
          code: "ENOSPC",
          errno: -28,
          syscall: op,
          path: String(p),
        });
      }
      if (this.options.logFile)
        original.appendFileSync(
          this.options.logFile,
          `${JSON.stringify({ ...record, injected: record.injected ? "ENOSPC" : undefined })}\n`,
        );
      this.steps.push(record);
      return record;
    }
    const stop = this.options.stopAt === n;
    if (this.options.logFile)
      original.appendFileSync(
        this.options.logFile,
        `${JSON.stringify({ ...record, ...(stop && { stopped: true }) })}\n`,
      );
    if (stop) {
      this.stopped = true;
      if (this.options.onStop === "kill") process.kill(process.pid, "SIGKILL");
      this.markStopped();
      return null;
    }
    this.steps.push(record);
    return record;
  }

  track(handle: fs.promises.FileHandle): void {
    this.handles.add(handle);
  }

  /** A frozen gate's open files, closed as the kernel closes a killed process's. */
  async release(): Promise<void> {
    for (const handle of this.handles) await handle.close().catch(() => undefined);
    this.handles.clear();
  }
}

/** The changes a full disk refuses (the others free space or change no data). */
const NEEDS_SPACE = new Set([
  "appendFile",
  "copyFile",
  "link",
  "mkdir",
  "mkdtemp",
  "symlink",
  "writeFile",
  "handle.appendFile",
  "handle.writeFile",
  "appendFileSync",
  "copyFileSync",
  "cpSync",
  "linkSync",
  "mkdirSync",
  "symlinkSync",
  "writeFileSync",
]);

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

const storage = new AsyncLocalStorage<StepGate>();
let processGate: StepGate | null = null;

function currentGate(): StepGate | null {
  return storage.getStore() ?? processGate;
}

/** Runs `fn` with `gate` over every file-system call it makes (installFsSteps first). */
export function withStepGate<T>(gate: StepGate, fn: () => Promise<T>): Promise<T> {
  return storage.run(gate, fn);
}

/** Makes `gate` the gate of every call of this process not inside `withStepGate` (the child preload). */
export function setProcessGate(gate: StepGate | null): void {
  processGate = gate;
}

/** Whether the flags of `open` may write. */
function opensForWriting(flags: unknown): boolean {
  if (typeof flags === "number")
    return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0;
  return typeof flags === "string" && /[wa+]/.test(flags);
}

/** See the header: a call that would leave the disk as it is is not a step. */
async function changesNothing(name: string, args: unknown[]): Promise<boolean> {
  const p = args[0];
  if (typeof p !== "string") return false;
  const exists = (x: string) =>
    original.lstat(x).then(
      () => true,
      () => false,
    );
  switch (name) {
    case "mkdir":
      return exists(p);
    case "chmod":
      return original.stat(p).then(
        (s) => typeof args[1] === "number" && (s.mode & 0o7777) === (args[1] & 0o7777),
        () => true,
      );
    case "rmdir":
      return original.readdir(p).then(
        (names) => names.length > 0,
        () => true,
      );
    case "unlink":
      return exists(p).then((e) => !e);
    default:
      return false;
  }
}

/** Calls that change what is on disk, and which arguments name the paths they change. */
const CHANGES: Record<string, (args: unknown[]) => [unknown, unknown?] | null> = {
  appendFile: (a) => [a[0]],
  chmod: (a) => [a[0]],
  chown: (a) => [a[0]],
  copyFile: (a) => [a[1]],
  lchown: (a) => [a[0]],
  link: (a) => [a[1]],
  lutimes: (a) => [a[0]],
  mkdir: (a) => [a[0]],
  mkdtemp: (a) => [a[0]],
  open: (a) => (opensForWriting(a[1]) ? [a[0]] : null),
  rename: (a) => [a[0], a[1]],
  rmdir: (a) => [a[0]],
  symlink: (a) => [a[1]],
  truncate: (a) => [a[0]],
  unlink: (a) => [a[0]],
  utimes: (a) => [a[0]],
  writeFile: (a) => [a[0]],
};
const READS = ["access", "lstat", "opendir", "readdir", "readFile", "readlink", "realpath", "stat", "statfs"];
const HANDLE_CHANGES = ["appendFile", "chmod", "truncate", "writeFile"];
// `close` is an own property of each handle in Node (an arrow function), so it is not queued.
const HANDLE_OTHERS = ["datasync", "read", "readFile", "readv", "stat", "sync"];
const handlePath = Symbol("fs-steps path");
type PathedHandle = fs.promises.FileHandle & { [handlePath]?: string };

/** Data a caller could still change after the call is copied for the replay. */
function frozenArgs(args: unknown[]): unknown[] {
  return args.map((a) => (Buffer.isBuffer(a) || a instanceof Uint8Array ? Buffer.from(a) : a));
}

/** Runs a change, marking its step failed when it throws. */
async function take<T>(step: FsStep, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    step.failed = true;
    throw error;
  }
}

function wrapPromise(name: string, changes: ((args: unknown[]) => [unknown, unknown?] | null) | null): void {
  const fn = P[name];
  if (typeof fn !== "function") return;
  P[name] = function (this: unknown, ...args: unknown[]) {
    const gate = currentGate();
    if (!gate) return fn.apply(this, args);
    return gate.enqueue(async () => {
      const paths = changes?.(args);
      if (!paths || (await changesNothing(name, args))) return fn.apply(this, args);
      const step = gate.step(name, paths[0], paths[1]);
      if (!step) return NEVER;
      if (step.injected) throw step.injected;
      step.replay = syncReplay(name, frozenArgs(args));
      const result = await take(step, () => fn.apply(this, args) as Promise<unknown>);
      if (name === "open") gate.track(result as fs.promises.FileHandle);
      return result;
    });
  };
}

/**
 * The same change with the blocking call of the same name: the same system calls, without a thread
 * pool round trip each (a replay does thousands).
 */
function syncReplay(name: string, args: unknown[]): () => void {
  if (name === "mkdtemp") throw new Error("fs-steps: mkdtemp picks a new name, it cannot be replayed");
  const call = originalSync[`${name}Sync`];
  if (!call) throw new Error(`fs-steps: no blocking ${name} to replay with`);
  if (name === "open")
    return () => {
      originalSync.closeSync!(call(...args));
    };
  return () => void call(...args);
}

/** A handle's change, replayed on its path (the file a writer has open is still at that name). */
function handleReplay(name: string, file: string, args: unknown[]): () => void {
  const kept = frozenArgs(args);
  switch (name) {
    case "chmod":
      return () => originalSync.chmodSync!(file, kept[0]);
    case "truncate":
      return () => originalSync.truncateSync!(file, kept[0]);
    case "appendFile":
      return () => originalSync.appendFileSync!(file, kept[0]);
    default:
      return () => originalSync.writeFileSync!(file, kept[0]);
  }
}

function wrapHandle(proto: Record<string, AnyFn>): void {
  const rawStat = proto.stat as (this: fs.promises.FileHandle) => Promise<fs.Stats>;
  for (const name of [...HANDLE_CHANGES, ...HANDLE_OTHERS]) {
    const fn = proto[name];
    if (typeof fn !== "function") continue;
    proto[name] = function (this: PathedHandle, ...args: unknown[]) {
      const gate = currentGate();
      if (!gate) return fn.apply(this, args);
      return gate.enqueue(async () => {
        const file = this[handlePath];
        if (!HANDLE_CHANGES.includes(name) || file === undefined) return fn.apply(this, args);
        if (
          name === "chmod" &&
          typeof args[0] === "number" &&
          ((await rawStat.call(this)).mode & 0o7777) === (args[0] & 0o7777)
        )
          return fn.apply(this, args);
        const step = gate.step(`handle.${name}`, file);
        if (!step) return NEVER;
        if (step.injected) throw step.injected;
        step.replay = handleReplay(name, file, args);
        return take(step, () => fn.apply(this, args) as Promise<unknown>);
      });
    };
  }
}

/** `rm` of a folder, entry by entry through the counted calls (Node's rimraf does the same). */
async function rmWalk(p: string, options: fs.RmOptions | undefined): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.lstat(p);
  } catch (error) {
    if (options?.force && (error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!stat.isDirectory()) {
    try {
      await fs.promises.unlink(p);
    } catch (error) {
      if (!(options?.force && (error as NodeJS.ErrnoException).code === "ENOENT")) throw error;
    }
    return;
  }
  if (!options?.recursive) return original.rm(p, options); // Node's own "is a directory" error
  for (const name of await fs.promises.readdir(p))
    await rmWalk(path.join(p, name), { ...options, force: true });
  await fs.promises.rmdir(p);
}

/** `cp` as Node's does it (cp.js: lstat; a folder is mkdir, its entries, chmod; a file copyFile + chmod). */
async function cpWalk(src: string, dest: string, options: fs.CopyOptions | undefined): Promise<void> {
  const stat = await fs.promises.lstat(src);
  if (stat.isDirectory()) {
    if (!options?.recursive) return original.cp(src, dest, options);
    const existing = await fs.promises.lstat(dest).catch(() => null);
    if (!existing) await fs.promises.mkdir(dest);
    for (const name of await fs.promises.readdir(src))
      await cpWalk(path.join(src, name), path.join(dest, name), options);
    if (!existing) await fs.promises.chmod(dest, stat.mode);
  } else if (stat.isSymbolicLink()) {
    const target = await fs.promises.readlink(src);
    await fs.promises.symlink(
      options?.verbatimSymlinks ? target : path.resolve(path.dirname(src), target),
      dest,
    );
  } else {
    await fs.promises.copyFile(src, dest);
    await fs.promises.chmod(dest, stat.mode);
  }
}

const SYNC_CHANGES: Record<string, (args: unknown[]) => [unknown, unknown?] | null> = {
  appendFileSync: (a) => [a[0]],
  chmodSync: (a) => [a[0]],
  copyFileSync: (a) => [a[1]],
  cpSync: (a) => [a[1]],
  linkSync: (a) => [a[1]],
  mkdirSync: (a) => [a[0]],
  openSync: (a) => (opensForWriting(a[1]) ? [a[0]] : null),
  renameSync: (a) => [a[0], a[1]],
  rmSync: (a) => [a[0]],
  rmdirSync: (a) => [a[0]],
  symlinkSync: (a) => [a[1]],
  truncateSync: (a) => [a[0]],
  unlinkSync: (a) => [a[0]],
  writeFileSync: (a) => [a[0]],
};

let installed = false;

/** Wraps node:fs once for this process; without a gate every call goes straight through. */
export function installFsSteps(): void {
  if (installed) return;
  installed = true;
  for (const [name, changes] of Object.entries(CHANGES)) wrapPromise(name, changes);
  for (const name of READS) wrapPromise(name, null);
  // Not queued themselves: they call the queued primitives above (a queued walk would wait on itself).
  P.rm = function (p: unknown, options: unknown) {
    if (!currentGate() || typeof p !== "string") return original.rm(p as string, options as fs.RmOptions);
    return rmWalk(p, options as fs.RmOptions | undefined);
  };
  P.cp = function (src: unknown, dest: unknown, options: unknown) {
    if (!currentGate() || typeof src !== "string" || typeof dest !== "string")
      return original.cp(src as string, dest as string, options as fs.CopyOptions);
    return cpWalk(src, dest, options as fs.CopyOptions | undefined);
  };
  // File handles: their prototype is reachable only through a handle; wrapped on the first open.
  const open = P.open!;
  let handleWrapped = false;
  P.open = async function (this: unknown, ...args: unknown[]) {
    const handle = (await open.apply(this, args)) as PathedHandle;
    if (!handleWrapped) {
      handleWrapped = true;
      wrapHandle(Object.getPrototypeOf(handle) as Record<string, AnyFn>);
    }
    if (typeof args[0] === "string") handle[handlePath] = args[0];
    return handle;
  };
  for (const [name, changes] of Object.entries(SYNC_CHANGES)) {
    const fn = S[name];
    if (typeof fn !== "function") continue;
    S[name] = function (this: unknown, ...args: unknown[]) {
      const gate = currentGate();
      const paths = gate ? changes(args) : null;
      if (!gate || !paths) return fn.apply(this, args);
      const step = gate.step(name, paths[0], paths[1]);
      if (!step) throw new Error(`fs-steps: stopped before ${name} ${String(paths[0])}`);
      if (step.injected) throw step.injected;
      step.replay = syncReplay(name.replace(/Sync$/, ""), frozenArgs(args));
      try {
        return fn.apply(this, args);
      } catch (error) {
        step.failed = true;
        throw error;
      }
    };
  }
  syncBuiltinESMExports(); // `import { rename } from "node:fs/promises"` sees the wrapped calls too
}

/** Does steps 1…`upTo` of a recorded run again, in order, with the original calls. */
export function replaySteps(steps: FsStep[], upTo: number): void {
  for (const step of steps.slice(0, upTo)) {
    if (step.failed) continue;
    if (!step.replay)
      throw new Error(`fs-steps: step ${step.n} (${step.op} ${step.path}) cannot be replayed`);
    step.replay();
  }
}
