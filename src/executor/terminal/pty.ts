// The pseudo-terminal under a terminal session: @lydell/node-pty, node-pty with its prebuilt binaries in
// per-platform npm packages (macOS, Windows and Linux, x64 and arm64), so installing Gatehouse never
// needs a compiler. Loaded on first use: nothing else in the app pays for the native module.
import { createRequire } from "node:module";
import type * as NodePty from "@lydell/node-pty";
import type { IPty } from "@lydell/node-pty";

export interface PtySpawn {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  rows: number;
  cols: number;
}

export type PtyProcess = Pick<
  IPty,
  "pid" | "onData" | "onExit" | "write" | "resize" | "kill" | "pause" | "resume"
>;

export type SpawnPty = (spec: PtySpawn) => PtyProcess;

let loaded: typeof NodePty | null = null;

/** Spawns `spec` on a new pseudo-terminal; throws when the PTY cannot be created (the caller answers). */
export const spawnPty: SpawnPty = (spec) => {
  loaded ??= createRequire(import.meta.url)("@lydell/node-pty") as typeof NodePty;
  return loaded.spawn(spec.file, spec.args, {
    name: spec.env.TERM ?? "xterm-256color",
    cwd: spec.cwd,
    env: spec.env,
    rows: spec.rows,
    cols: spec.cols,
  });
};
