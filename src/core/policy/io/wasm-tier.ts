// The shell parsers' WebAssembly runs on V8's baseline compiler only (docs/decisions.md "Start-up"):
// V8's optimising recompilation of it cost a one-shot command more than a second of CPU. bin/gatehouse.js
// sets the flag at the start of every command but the hook (the same literal); the hook, which parses
// only when no Gatehouse answers, sets it here before it loads the gate. Setting it again is a no-op.
import v8 from "node:v8";

export const BASELINE_WASM_FLAG = "--liftoff-only";

export function useBaselineWasmOnly(): void {
  v8.setFlagsFromString(BASELINE_WASM_FLAG);
}
