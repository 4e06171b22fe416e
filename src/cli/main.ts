// The `gatehouse` command: a table of subcommands, each in its own module under commands/, imported
// only when it runs.
import { checkTrustedHome } from "../core/io/trust.js";
import {
  createCliContext,
  EXIT_UNTRUSTED_HOME,
  UsageError,
  type CliContext,
  type CommandSpec,
} from "./context.js";
import { commands } from "./commands/index.js";
import { config as zodConfig } from "zod/mini";
import englishMessages from "zod/v4/locales/en.js";

async function helpText(): Promise<string> {
  const specs = await Promise.all(commands.map((c) => c.load()));
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = specs.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: gatehouse <command> [options]",
    "",
    "Gatehouse turns this computer into a local executor device for a Wegent-compatible agent",
    "backend and keeps you at the gate of every command agents run here.",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `gatehouse <command> --help` for a command's options. Most commands take --json.",
    "The app home is $WEGENT_EXECUTOR_HOME, else ~/.wegent-executor.",
  ].join("\n");
}

export async function main(argv: string[], ctx: CliContext = createCliContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    ctx.stdout.write(`${await helpText()}\n`);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    ctx.stdout.write(`${(await import("../version.js")).APP_VERSION}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    ctx.stderr.write(`gatehouse: unknown command "${name}"\n\n${await helpText()}\n`);
    return 2;
  }
  // zod compiles a fast path for each object schema it parses (new Function): worth it in the long-lived
  // runner, a cost in a command that parses a few values and exits (the hook runs on every tool call).
  if (name !== "serve") zodConfig({ jitless: true });
  // Validation messages in English, as classic zod words them (the hook's path loads only zod/mini).
  zodConfig(englishMessages());
  const spec: CommandSpec = await entry.load();
  // `--help` anywhere before `--` (`gatehouse workdir resolve --help`); after `--` it belongs to the command.
  const options = rest.indexOf("--") === -1 ? rest : rest.slice(0, rest.indexOf("--"));
  if (options.includes("--help") || options.includes("-h")) {
    ctx.stdout.write(`Usage: ${spec.usage}\n\n${spec.summary}\n`);
    return 0;
  }
  // Every command reads E (policy, token, state): none runs on a home another user could write.
  const untrusted = checkTrustedHome(ctx.paths.executorHome);
  if (untrusted) {
    if (spec.refuse) return spec.refuse(ctx, untrusted.message, rest);
    ctx.stderr.write(`gatehouse ${name}: ${untrusted.message}\n`);
    return EXIT_UNTRUSTED_HOME;
  }
  try {
    return await spec.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      ctx.stderr.write(`gatehouse ${name}: ${error.message}\nUsage: ${spec.usage}\n`);
      return 2;
    }
    ctx.stderr.write(`gatehouse ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}
