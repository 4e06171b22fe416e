// Issue 32, Build 4, in a real browser against the real app: the banner names what is at stake — the
// affected folder ("your whole home folder"), an install, a delete or sudo on another machine, inline code
// that deletes — and the dialog's key sentences carry no configuration names (askFallback, security=).
import { describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";

const skip = browserUnavailable();
if (skip) console.warn(`Skipping the browser tests: ${skip}`);

const ASK_ME = { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } };

describe.skipIf(skip)("risk words", () => {
  const suite = browserSuite();

  it("each risky command gets a banner that says what it would do, in plain words", async () => {
    const a = await suite.startApp({ approvals: ASK_ME });
    const { page } = await suite.open(a, "approval");
    const cases: Array<{ command: string; banner: string; says: string }> = [
      {
        command: "rm -rf ~",
        banner: "Careful: this can do real harm",
        says: `deletes your whole home folder (${a.t.home}): rm -rf ~`,
      },
      {
        command: "pip install requests",
        banner: "Worth a second look",
        says: "installs packages from the internet, and their own install scripts may run as you: pip install requests",
      },
      {
        command: "rsync -a --delete ./site/ deploy@web1:/var/www/",
        banner: "Careful: this can do real harm",
        says: "deletes files on web1 (in deploy@web1:/var/www/) that are not in ./site/",
      },
      {
        command: "ssh web1 sudo systemctl restart nginx",
        banner: "Careful: this can do real harm",
        says: "runs as administrator on web1: ssh web1 sudo systemctl restart nginx",
      },
      {
        command: `python3 -c "import shutil; shutil.rmtree('build')"`,
        banner: "Careful: this can do real harm",
        says: "runs python3 code that deletes files (shutil.rmtree)",
      },
    ];
    for (const c of cases) {
      const reply = requestOnce(
        a.t.paths,
        "approval.request",
        { command: c.command, cwd: a.t.home, sessionKey: "e2e", agentId: "local", timeoutMs: 60_000 },
        { timeoutMs: 60_000 },
      );
      const banner = page.getByRole("region", { name: c.banner });
      await banner.waitFor();
      await expect(banner.textContent()).resolves.toContain(c.says);
      const dialog = (await page.getByRole("dialog").textContent()) ?? "";
      expect(dialog).toContain("If you do not answer in time, the command is denied.");
      expect(dialog).not.toMatch(/askFallback|security=|ask=/);
      await page.keyboard.press("Escape");
      const answer = await reply;
      expect(answer.status === "ok" && answer.body).toMatchObject({ decision: "deny", decidedBy: "user" });
      await banner.waitFor({ state: "detached" });
    }
  });
});
