// The approval dialog in a real browser against the real app: requests arrive from a real client over
// the approval socket; decisions reach that client and the approvals file (ui.md "Approval dialog").
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";
import { realProgram } from "../support/programs.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("approval dialog", () => {
  const suite = browserSuite();

  async function readApprovals(a: E2eApp) {
    return ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
  }

  it("a request from a real socket client pops the dialog; allow always with an edited pattern saves that entry, the client gets the decision, and the next identical request is decided by the rule", async () => {
    const app = await suite.startApp({ approvals: ASK_ME });
    const a = app;
    const view = await suite.open(a, "approval");
    const { page } = view;
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();

    const ls = realProgram("ls");
    const body = {
      argv: ["ls", "-la"],
      cwd: a.t.home,
      agentId: "local",
      sessionKey: "e2e",
      timeoutMs: 60_000,
    };
    const first = requestOnce(a.t.paths, "approval.request", body, { timeoutMs: 60_000 });

    const dialog = page.getByRole("dialog", { name: "Allow this command?" });
    await dialog.waitFor();
    await expect(page.getByLabel("Command", { exact: true }).textContent()).resolves.toBe("ls -la");
    await expect(dialog.textContent()).resolves.toContain(a.t.home);
    await expect(dialog.textContent()).resolves.toContain(`runs ${ls}`);
    await expect(dialog.textContent()).resolves.toContain(
      "If you do not answer in time, the command is denied",
    );

    await page.getByRole("button", { name: "Allow always…" }).click();
    const pattern = page.getByLabel("Program (pattern)");
    await expect(pattern.inputValue()).resolves.toBe(ls);
    const edited = `${path.dirname(ls)}/l*`;
    await pattern.fill(edited);
    await page.getByRole("button", { name: "Save and allow" }).click();

    const reply = await first;
    expect(reply.status).toBe("ok");
    if (reply.status !== "ok") return;
    expect(reply.body.decision).toBe("allow-always");
    expect(reply.body.decidedBy).toBe("user");

    // Who asks is only claimed over the socket: allow always saves for every agent (identity unproven).
    const saved = (await readApprovals(a)).agents["*"]?.allowlist ?? [];
    expect(saved.map((e) => ({ pattern: e.pattern, source: e.source }))).toEqual([
      { pattern: edited, source: "allow-always" },
    ]);
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();

    const again = await requestOnce(a.t.paths, "approval.request", body, { timeoutMs: 10_000 });
    expect(again.status).toBe("ok");
    if (again.status !== "ok") return;
    expect(again.body.decision).toBe("allow-once");
    expect(again.body.decidedBy).toBe(`rule:${saved[0]!.id}`);
    expect(a.services.broker.size).toBe(0);
  });
  it("Deny (Esc) reaches the client as a denial by the user, and the dialog moves on to the next request", async () => {
    const app = await suite.startApp({ approvals: ASK_ME });
    const a = app;
    const view = await suite.open(a, "approval");
    const { page } = view;
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const ask = (argv: string[]) =>
      requestOnce(
        a.t.paths,
        "approval.request",
        { argv, cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000 },
        { timeoutMs: 60_000 },
      );
    const first = ask(["rm", "-rf", "build"]);
    await page.getByRole("dialog").waitFor();
    const second = ask(["touch", "notes.txt"]);
    await page.getByLabel("Request 1 of 2").waitFor();
    await expect(page.getByLabel("Command", { exact: true }).textContent()).resolves.toBe("rm -rf build");

    await page.keyboard.press("Escape");
    const denied = await first;
    expect(denied.status === "ok" && denied.body).toMatchObject({ decision: "deny", decidedBy: "user" });

    await waitFor(
      async () => (await page.getByLabel("Command", { exact: true }).textContent()) === "touch notes.txt",
      {
        what: "the second request in the dialog",
      },
    );
    expect(await page.getByLabel("Request 1 of 2").count()).toBe(0);
    // Focus first: focus landing on an allowing button starts its arming again (issue 32).
    const allowOnce = page.getByRole("button", { name: "Allow once" });
    await allowOnce.focus();
    await waitFor(async () => (await allowOnce.getAttribute("aria-disabled")) === "false", {
      what: "Allow once to arm",
    });
    await page.keyboard.press("Enter");
    const allowed = await second;
    expect(allowed.status === "ok" && allowed.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "user",
    });
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
    const file = await readApprovals(a);
    expect(Object.values(file.agents).flatMap((agent) => agent?.allowlist ?? [])).toEqual([]);
  });

  it("when nobody answers, askFallback=deny reaches the client as a timeout (not a denial by the user) and the dialog withdraws the request", async () => {
    const app = await suite.startApp({ approvals: ASK_ME });
    const a = app;
    const view = await suite.open(a, "approval");
    const { page } = view;
    const pending = requestOnce(
      a.t.paths,
      "approval.request",
      { argv: ["uname", "-a"], cwd: a.t.home, timeoutMs: 1_500 },
      { timeoutMs: 20_000 },
    );
    await page.getByRole("dialog").waitFor();
    await expect(page.getByRole("dialog").textContent()).resolves.toContain(
      "If you do not answer in time, the command is denied.",
    );
    const reply = await pending;
    expect(reply.status === "ok" && reply.body).toMatchObject({ decision: "timeout", decidedBy: "fallback" });
    await page.getByRole("heading", { name: "No approvals waiting" }).waitFor();
  });

  it("when nobody answers, askFallback=allowlist runs what the allowlist covers: the client gets allow-once decided by the fallback", async () => {
    const uname = realProgram("uname");
    const app = await suite.startApp({
      approvals: {
        defaults: { security: "allowlist", ask: "always", askFallback: "allowlist" },
        agents: { "*": { allowlist: [{ id: "uname-entry", pattern: uname }] } },
      },
    });
    const a = app;
    const view = await suite.open(a, "approval");
    const { page } = view;
    const pending = requestOnce(
      a.t.paths,
      "approval.request",
      { argv: ["uname", "-a"], cwd: a.t.home, timeoutMs: 1_500 },
      { timeoutMs: 20_000 },
    );
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain("the command runs (the allowlist covers it)");
    // ask=always: allow always is not offered.
    expect(await page.getByRole("button", { name: "Allow always…" }).count()).toBe(0);
    const reply = await pending;
    expect(reply.status === "ok" && reply.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "fallback",
    });
  });

  it("an agent's file edit outside its task's folder shows the file and where it lies; a denial reaches the agent's hook", async () => {
    const app = await suite.startApp({ approvals: ASK_ME });
    const a = app;
    const view = await suite.open(a, "approval");
    const { page } = view;
    const folder = path.join(a.t.home, "Projects", "app");
    await fs.mkdir(folder, { recursive: true });
    const bashrc = path.join(a.t.home, ".bashrc");
    const pending = requestOnce(
      a.t.paths,
      "approval.request",
      {
        file: { tool: "Write", access: "write", paths: [bashrc], workdir: folder, runtime: "claude" },
        agentId: "claude-code",
        source: "claude-hook",
        timeoutMs: 60_000,
      },
      { timeoutMs: 60_000 },
    );
    const dialog = page.getByRole("dialog", { name: "Allow Write to change this file?" });
    await dialog.waitFor();
    await expect(page.getByLabel("Files").textContent()).resolves.toContain(
      `${bashrc} — outside the task's folder`,
    );
    await expect(dialog.textContent()).resolves.toContain(folder);
    expect(await page.getByRole("button", { name: "Allow always…" }).count()).toBe(0);
    await page.getByRole("button", { name: /^Deny/ }).click();
    const reply = await pending;
    expect(reply.status === "ok" && reply.body).toMatchObject({ decision: "deny", decidedBy: "user" });
  });
});
