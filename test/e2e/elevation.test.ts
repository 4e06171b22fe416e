// Issue 15 "Elevated mode" in a real browser against the real app: Status starts and ends it with the
// time left shown, the approval dialog warns when a request is decided under it, and Activity lists
// both changes.
import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("elevated mode in the app", () => {
  const suite = browserSuite();

  async function elevatedInFile(path: string): Promise<Record<string, { by?: string }> | undefined> {
    return (JSON.parse(await fs.readFile(path, "utf8")) as { elevated?: Record<string, { by?: string }> })
      .elevated;
  }

  it("Status elevates every agent with the time left shown, ends it, and Activity lists both", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "status");
    const section = page.getByRole("region", { name: "Elevated mode" });
    await section.getByText("Off: every agent follows the policy.").waitFor();
    await section.getByRole("button", { name: "Elevate every agent for 15 min" }).click();
    // Never one click: one sentence says what it means (who, how long, until when) and asks to confirm.
    const confirm = section.getByRole("group", { name: "Confirm elevated mode" });
    await expect(confirm.textContent()).resolves.toMatch(
      /Every agent will run every command without asking you for 15 min, until .+\./,
    );
    expect(await elevatedInFile(a.t.paths.approvals)).toBeUndefined();
    await confirm.getByRole("button", { name: "Yes, elevate" }).click();
    await section
      .getByText(/Every agent runs everything without asking \(security=full\): 1[45] min \d\d s left/)
      .waitFor();
    expect((await elevatedInFile(a.t.paths.approvals))?.["*"]?.by).toBe("app");
    // The protection mode says what happens now, not the preset elevated mode overrides.
    const protection = page.getByRole("region", { name: "Protection" });
    await protection.getByText("Elevated: every command runs without asking", { exact: true }).waitFor();
    await expect(protection.textContent()).resolves.toMatch(
      /Elevated mode: every agent runs every command without asking for 1[45] min \d\d s \(until .+\)\. The preset below applies again when it ends\./,
    );

    await section.getByRole("button", { name: "End elevated mode" }).click();
    await section.getByText("Off: every agent follows the policy.").waitFor();
    expect(await elevatedInFile(a.t.paths.approvals)).toBeUndefined();
    await protection.getByText("Ask me: the allowlist runs, anything else waits for you").waitFor();
    expect(await protection.textContent()).not.toContain("Elevated");
    const records = await a.services.audit.read({ limit: 20 });
    expect(records.filter((r) => r.event === "elevation").map((r) => r.decision)).toEqual([
      "deny",
      "allow-once",
    ]);
  });

  it("the approval window shows elevated mode with the time left, and ends it in one click", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    await a.services.approvals.elevate("*", Date.now() + 10 * 60_000, "test");
    const { page } = await suite.open(a, "approval");
    const bar = page.getByRole("region", { name: "Elevated mode" });
    await bar
      .getByText(/Elevated: every agent runs every command without asking, (10 min 00|9 min \d\d) s left/)
      .waitFor();
    await bar.getByRole("button", { name: "End elevated mode" }).click();
    await waitFor(async () => (await elevatedInFile(a.t.paths.approvals)) === undefined, {
      what: "elevated mode to end",
    });
    await waitFor(async () => (await page.getByRole("region", { name: "Elevated mode" }).count()) === 0, {
      what: "the bar to go",
    });
  });

  it("the approval dialog warns that elevated mode is on when a request is decided under it", async () => {
    const a = await suite.startApp({
      approvals: { defaults: { security: "allowlist", ask: "always", askFallback: "deny" } },
    });
    const until = Date.now() + 10 * 60_000;
    await a.services.approvals.elevate("*", until, "test");
    // A person in India (UTC+5:30): the end is said on their clock, never in UTC.
    const { page } = await suite.open(a, "approval", { timezoneId: "Asia/Kolkata" });
    const reply = requestOnce(
      a.t.paths,
      "approval.request",
      { argv: ["git", "status"], cwd: a.t.home, sessionKey: "e2e", timeoutMs: 60_000 },
      { timeoutMs: 60_000 },
    );
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    const banner = page.getByRole("region", { name: "Worth a second look" });
    await expect(banner.textContent()).resolves.toContain(
      "elevated mode is on: this agent's other commands run without asking (until ",
    );
    const said = (await banner.textContent()) ?? "";
    // The hour and minute of the person's clock (the locale may write 02:05 PM or 14:05); Kolkata's
    // half-hour offset makes the minutes differ from UTC's.
    const local = new Date(until).toLocaleTimeString("en-US", {
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "Asia/Kolkata",
    });
    const [, hh, mm] = /\(until (\d\d):(\d\d)/.exec(said) ?? [];
    const [, lh, lm] = /(\d\d):(\d\d)/.exec(local) ?? [];
    expect([Number(hh) % 12, mm]).toEqual([Number(lh) % 12, lm]);
    expect(said).not.toContain("UTC");
    await page.getByRole("button", { name: "Deny" }).click();
    await waitFor(async () => (await reply).status === "ok", { what: "the reply" });
  });
});
