// `gatehouse socket rotate-token`: a new approval socket token. A running server reads it for the
// next frame, so clients holding the old token are refused from then on.
import { parseCommandArgs } from "../args.js";
import { approvalsStoreAt } from "../../core/approvals/index.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = "gatehouse socket rotate-token [--json]";

async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommandArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { json: { type: "boolean", default: false } },
  });
  const [action, ...rest] = parsed.positionals;
  if (action !== "rotate-token" || rest.length > 0) throw new UsageError("the only action is rotate-token");
  const store = approvalsStoreAt(ctx.paths);
  await store.rotateToken(); // an invalid file throws InvalidFileError and is left as it is
  if (parsed.values.json) printJson(ctx, { rotated: true, path: ctx.paths.approvals });
  else
    printLine(
      ctx,
      `Rotated the approval socket token in ${ctx.paths.approvals}; the old token is refused from now on.`,
    );
  return 0;
}

export const command: CommandSpec = {
  name: "socket",
  summary: "Manage the approval socket",
  usage: USAGE,
  run,
};
