// What the approval dialog's browser tests share: the "Ask me" policy, a signed approval request from
// a local client (as a hook would send), and the dialog's buttons and whether one is armed.
import type { Page } from "playwright-core";
import { requestOnce } from "../../src/approval-server/client.js";
import type { E2eApp } from "./e2e-app.js";

export const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

export function askApproval(a: E2eApp, body: Record<string, unknown>) {
  return requestOnce(
    a.t.paths,
    "approval.request",
    { cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000, agentId: "local", ...body },
    { timeoutMs: 60_000 },
  );
}

export const dialogButton = (page: Page, name: string) => page.getByRole("button", { name, exact: true });

export const isArmed = async (page: Page, name: string) =>
  (await dialogButton(page, name).getAttribute("aria-disabled")) === "false";
