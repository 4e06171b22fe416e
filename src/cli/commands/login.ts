// `gatehouse login [--backend URL]`: saves the backend token in the OS keychain (device-protocol.md
// §1). The token is read from stdin or a hidden prompt, never from the command line, where other
// users could see it in the process list and it would land in shell history.
import { checkBackendUrl } from "../../device/backend-url.js";
import { loadDeviceConfig, saveBackendUrl } from "../../device/config.js";
import { signalCredentialsChanged } from "../../device/credentials-signal.js";
import { normaliseToken } from "../../secrets/auth-token.js";
import { AUTH_TOKEN_ACCOUNT, secretStoreFor } from "../../secrets/secret-store.js";
import { parseCommandArgs, readAllText } from "../args.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE =
  "gatehouse login [--backend URL] [--json]   (the token is read from stdin or asked for, hidden)";

/** Reads one line from a terminal without echoing it. */
function readHidden(ctx: CliContext, question: string): Promise<string> {
  const input = ctx.stdin as NodeJS.ReadStream;
  ctx.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = "";
    input.setRawMode(true);
    input.resume();
    input.setEncoding("utf8");
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off("data", onData);
      ctx.stderr.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") return done();
        if (char === "\u0003") return done(new UsageError("cancelled"));
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1);
        else if (char >= " ") value += char;
      }
    };
    input.on("data", onData);
  });
}

export const command: CommandSpec = {
  name: "login",
  summary: "Save the backend token in the OS keychain (read from stdin)",
  usage: USAGE,
  async run(args, ctx) {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { backend: { type: "string" }, json: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length > 0) {
      throw new UsageError(
        "the token is not taken from the command line; pipe it on stdin or type it when asked",
      );
    }
    let backendUrl: string | null = null;
    if (values.backend !== undefined) {
      const checked = checkBackendUrl(values.backend);
      if (!checked.ok) throw new UsageError(checked.error);
      backendUrl = checked.url;
    }

    const interactive = (ctx.stdin as NodeJS.ReadStream).isTTY === true;
    const raw = interactive ? await readHidden(ctx, "Backend token: ") : await readAllText(ctx.stdin);
    const token = normaliseToken(raw);
    if (!token) throw new UsageError('no token given: pipe it on stdin (echo "$TOKEN" | gatehouse login)');
    ctx.logger.addSecret(token);

    const secrets = secretStoreFor(ctx.paths, ctx.env, ctx.logger);
    await secrets.set(AUTH_TOKEN_ACCOUNT, token);
    if (backendUrl) await saveBackendUrl(ctx.paths, backendUrl);
    // Generates and persists the device id now, so the person can see (and use) it right away.
    const config = await loadDeviceConfig({ paths: ctx.paths, env: ctx.env });
    await signalCredentialsChanged(ctx.paths);

    const where = secrets.location() === "file" ? "file" : "keychain";
    const envOverrides = Boolean(ctx.env.WEGENT_AUTH_TOKEN?.trim());
    if (values.json) {
      printJson(ctx, {
        saved: true,
        location: where,
        backendUrl,
        deviceConfig: ctx.paths.deviceConfig,
        deviceId: config.ok ? config.config.deviceId : null,
        configError: config.ok ? null : config.error,
        environmentOverrides: envOverrides,
      });
      return 0;
    }
    printLine(
      ctx,
      where === "keychain"
        ? "Saved the backend token in the OS keychain."
        : `No OS keychain is reachable: saved the backend token in ${ctx.paths.executorHome}/secrets.json (mode 0600).`,
    );
    if (backendUrl) printLine(ctx, `Backend URL ${backendUrl} saved in ${ctx.paths.deviceConfig}.`);
    if (config.ok) printLine(ctx, `This device is ${config.config.deviceId} (${config.config.deviceName}).`);
    else printLine(ctx, config.error);
    if (envOverrides)
      printLine(ctx, "Note: WEGENT_AUTH_TOKEN is set in this environment and takes precedence.");
    printLine(ctx, "A running Gatehouse reconnects with it now.");
    return 0;
  },
};
