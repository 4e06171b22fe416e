import type { CommandSpec } from "../context.js";

/** Placeholder for a command whose feature has not landed yet. */
export function notImplemented(name: string, summary: string, usage: string): CommandSpec {
  return {
    name,
    summary,
    usage,
    run: async (_args, ctx) => {
      ctx.stderr.write(`gatehouse ${name}: not available in this build yet\n`);
      return 2;
    },
  };
}
