// `gatehouse logout`: removes the backend token from the OS keychain (and the fallback file), and
// says where a token would still come from (environment, an executor's device-config.json).
import { peekDeviceConfig } from "../../device/config.js";
import { signalCredentialsChanged } from "../../device/credentials-signal.js";
import { AUTH_TOKEN_ACCOUNT, secretStoreFor } from "../../secrets/secret-store.js";
import { parseJsonFlag } from "../args.js";
import { printJson, printLine, type CommandSpec } from "../context.js";

export const command: CommandSpec = {
  name: "logout",
  summary: "Remove the backend token from the OS keychain",
  usage: "gatehouse logout [--json]",
  async run(args, ctx) {
    const json = parseJsonFlag(args);
    const secrets = secretStoreFor(ctx.paths, ctx.env, ctx.logger);
    const removed = await secrets.delete(AUTH_TOKEN_ACCOUNT);
    await signalCredentialsChanged(ctx.paths);
    const config = await peekDeviceConfig({ paths: ctx.paths, env: ctx.env });
    const stillFrom: string[] = [];
    if (ctx.env.WEGENT_AUTH_TOKEN?.trim()) stillFrom.push("the WEGENT_AUTH_TOKEN environment variable");
    if (config.ok && config.config.fileAuthToken)
      stillFrom.push(`connection.auth_token in ${ctx.paths.deviceConfig}`);
    if (json) {
      printJson(ctx, { removed, stillFrom });
      return 0;
    }
    printLine(ctx, removed ? "Removed the backend token." : "No saved backend token was found.");
    for (const source of stillFrom)
      printLine(ctx, `A token is still set in ${source}; remove it there to sign out fully.`);
    return 0;
  },
};
