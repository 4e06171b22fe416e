// `gatehouse serve`: the headless runner. Builds the app through services.ts, listens on the approval
// socket, and answers prompts in the terminal (--prompt tty), through another Gatehouse (--ask-via),
// or by askFallback. Stops cleanly on SIGINT/SIGTERM, removing its socket.
import type { Presenter } from "../../approval-server/broker.js";
import { askViaPaths, createAskViaPresenter } from "../../approval-server/presenter-ask-via.js";
import { createTtyPresenter } from "../../approval-server/presenter-tty.js";
import { createServices } from "../../services.js";
import { parseCommandArgs } from "../args.js";
import { printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = "gatehouse serve [--prompt tty] [--ask-via HOME]";

function parseOptions(args: string[]): { prompt: "tty" | null; askVia: string | null } {
  const { values } = parseCommandArgs({
    args,
    allowPositionals: false,
    strict: true,
    options: { prompt: { type: "string" }, "ask-via": { type: "string" } },
  });
  if (values.prompt !== undefined && values.prompt !== "tty") {
    throw new UsageError(`--prompt takes "tty" (got "${values.prompt}")`);
  }
  if (values.prompt && values["ask-via"] !== undefined) {
    throw new UsageError("choose one of --prompt tty and --ask-via");
  }
  if (values["ask-via"] !== undefined && values["ask-via"].trim() === "") {
    throw new UsageError("--ask-via needs the home folder of the Gatehouse to ask");
  }
  return { prompt: values.prompt === "tty" ? "tty" : null, askVia: values["ask-via"] ?? null };
}

function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const options = parseOptions(args);
  const logger = ctx.logger.child("serve");
  let presenter: (Presenter & { close?(): void }) | null = null;
  if (options.prompt === "tty") {
    if (!(ctx.stdin as { isTTY?: boolean }).isTTY) {
      throw new UsageError("--prompt tty needs a terminal on stdin; without one, prompts go to askFallback");
    }
    presenter = createTtyPresenter({ input: ctx.stdin, output: ctx.stderr });
  } else if (options.askVia) {
    const target = askViaPaths(options.askVia, ctx.env);
    if (target.executorHome === ctx.paths.executorHome) {
      throw new UsageError("--ask-via must name another Gatehouse home than the one being served");
    }
    presenter = createAskViaPresenter({ target, logger: logger.child("ask-via") });
  }

  // The whole runner: approval socket, and — when a backend is configured — the device connection,
  // capability sync and agent tasks, exactly as the tray app builds them.
  const services = createServices({ env: ctx.env, paths: ctx.paths, logger, presenter, device: {} });
  const started = await services.start();
  if (started.status !== "listening") {
    ctx.stderr.write(`gatehouse serve: ${started.message}\n`);
    presenter?.close?.();
    return 1;
  }
  const stopped = waitForStopSignal();
  const prompts = presenter
    ? `prompts go to ${presenter.kind === "tty" ? "this terminal" : options.askVia}`
    : "no presenter: askFallback decides prompts";
  logger.info(`serving (${prompts})`);
  const policy = await services.approvals.load();
  if (
    policy.status === "ok" &&
    !policy.file.defaults?.security &&
    Object.keys(policy.file.agents).length === 0
  )
    logger.info("next step: everything is denied until you choose a policy: `gatehouse init --preset ask`");
  printLine(ctx, `Gatehouse is serving ${ctx.paths.executorHome} on ${started.address}`);
  let lastLogged = "";
  const stopLogging = services.device?.onState((state) => {
    const line = `backend: ${state.state}${state.lastError ? ` (${state.lastError})` : ""}`;
    if (line === lastLogged) return;
    logger.info((lastLogged = line));
    // Nothing to connect to: say what to do next, once.
    if (state.state === "unconfigured")
      logger.info(
        "next step: `gatehouse login --backend URL` (or set WEGENT_BACKEND_URL and WEGENT_AUTH_TOKEN) to connect to a backend",
      );
  });
  const signal = await stopped;
  logger.info(`stopping on ${signal}`);
  stopLogging?.();
  presenter?.close?.();
  await services.stop();
  return 0;
}

export const command: CommandSpec = {
  name: "serve",
  summary: "Run the headless runner: approval server and backend connection",
  usage: USAGE,
  run,
};
