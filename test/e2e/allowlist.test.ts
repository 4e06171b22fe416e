// The allowlist editor in a real browser against the real app (ui.md "Allowlist editor"): validation as
// you type, add / edit / duplicate / delete written to E/exec-approvals.json at once, edits made
// elsewhere appearing without reopening, and the test box's live explanation.
import fs from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ApprovalsFileSchema } from "../../src/core/approvals/schema.js";
import type { E2eApp } from "../support/e2e-app.js";
import { browserUnavailable } from "../support/e2e-browser.js";
import { browserSuite } from "../support/e2e-suite.js";
import { waitFor } from "../support/wait-for.js";
import { realProgram } from "../support/programs.js";

const skip = browserUnavailable();

describe.skipIf(skip)("allowlist editor", () => {
  const suite = browserSuite();

  async function sharedEntries(a: E2eApp) {
    const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
    return file.agents["*"]?.allowlist ?? [];
  }

  async function open(): Promise<{ a: E2eApp; page: Page }> {
    const app = await suite.startApp({
      approvals: { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } },
    });
    const view = await suite.open(app, "allowlist");
    await view.page.getByRole("heading", { name: "Settings for All agents (*)" }).waitFor();
    return { a: app, page: view.page };
  }

  it("refuses an invalid glob and an invalid regex with the reason, then adds, edits, duplicates and deletes entries in the file", async () => {
    const { a, page } = await open();
    const ls = realProgram("ls");
    await page.getByRole("button", { name: "Add entry" }).click();
    const form = page.getByRole("form", { name: "New allowlist entry" });
    const pattern = form.getByLabel("Program (pattern)");
    const submit = form.getByRole("button", { name: "Add entry" });

    await pattern.fill("bin/*");
    await form.getByText("pattern must be an absolute path or start with ~/", { exact: true }).waitFor();
    expect(await pattern.getAttribute("aria-invalid")).toBe("true");
    expect(await submit.isDisabled()).toBe(true);

    await pattern.fill(ls);
    const args = form.getByLabel("Arguments (regular expression)");
    await args.fill("^(-la");
    await form.locator(".field-error", { hasText: /argPattern is not a valid regular expression/ }).waitFor();
    expect(await submit.isDisabled()).toBe(true);
    expect(await sharedEntries(a)).toEqual([]);

    await args.fill("^-la$");
    await waitFor(async () => !(await submit.isDisabled()), { what: "the Add button to enable" });
    await submit.click();
    await page.getByRole("status").getByText("Entry added.").waitFor();
    let entries = await sharedEntries(a);
    expect(entries).toEqual([expect.objectContaining({ pattern: ls, argPattern: "^-la$", source: "user" })]);
    const table = page.getByRole("table", { name: "Allowlist entries of All agents (*)" });
    await table.getByText(ls, { exact: true }).waitFor();

    await page.getByRole("button", { name: `Edit ${ls}` }).click();
    const editForm = page.getByRole("form", { name: "Edit allowlist entry" });
    await editForm.getByLabel("Only in folders matching").fill("~/Projects/**");
    await editForm.getByLabel("Uses left").fill("5");
    const save = editForm.getByRole("button", { name: "Save entry" });
    await waitFor(async () => !(await save.isDisabled()), { what: "Save to enable" });
    await save.click();
    await page.getByRole("status").getByText("Entry saved.").waitFor();
    entries = await sharedEntries(a);
    expect(entries).toEqual([expect.objectContaining({ pattern: ls, cwd: "~/Projects/**", usesLeft: 5 })]);

    await page.getByRole("button", { name: `Duplicate ${ls}` }).click();
    await waitFor(async () => (await sharedEntries(a)).length === 2, { what: "the duplicate in the file" });
    await waitFor(async () => (await page.getByRole("button", { name: `Delete ${ls}` }).count()) === 2, {
      what: "two rows",
    });

    await page
      .getByRole("button", { name: `Delete ${ls}` })
      .first()
      .click();
    await waitFor(async () => (await sharedEntries(a)).length === 1, { what: "one entry left in the file" });
    await waitFor(async () => (await page.getByRole("button", { name: `Delete ${ls}` }).count()) === 1, {
      what: "one row",
    });

    // A delete can be taken back: Undo puts the entry (what it covers and its limits) back in the file.
    await page.getByRole("button", { name: `Delete ${ls}` }).click();
    await waitFor(async () => (await sharedEntries(a)).length === 0, { what: "no entry left in the file" });
    await page.getByText(`Deleted ${ls}.`).waitFor();
    await page.getByRole("button", { name: "Undo" }).click();
    await waitFor(async () => (await sharedEntries(a)).length === 1, { what: "the entry back in the file" });
    expect(await sharedEntries(a)).toEqual([
      expect.objectContaining({ pattern: ls, cwd: "~/Projects/**", usesLeft: 5 }),
    ]);
    await page.getByText(`Restored ${ls}.`).waitFor();
  });

  it("Defaults and All agents (*) are distinct cards that say what each is; a new entry shows no error before typing, then every problem at once", async () => {
    const { page } = await open();
    const defaults = page.getByRole("region", { name: "Defaults" });
    await expect(defaults.textContent()).resolves.toContain("Settings only: no entries");
    const all = page.locator(".scope-card-all");
    await expect(all.textContent()).resolves.toContain("these settings override Defaults");
    expect(await page.locator(".scope-card-defaults").count()).toBe(1);
    const [defaultsEdge, allEdge] = await Promise.all(
      [".scope-card-defaults", ".scope-card-all"].map((sel) =>
        page.evaluate(`getComputedStyle(document.querySelector('${sel}')).borderLeftColor`),
      ),
    );
    expect(defaultsEdge).not.toBe(allEdge);

    await page.getByRole("button", { name: "Add entry" }).click();
    const form = page.getByRole("form", { name: "New allowlist entry" });
    await form.getByLabel("Program (pattern)").waitFor();
    expect(await form.locator(".field-error").count()).toBe(0);
    await form.getByLabel("Program (pattern)").fill("bin/*");
    await form.getByLabel("Uses left").fill("-3");
    await form.getByText("pattern must be an absolute path or start with ~/", { exact: true }).waitFor();
    await form.getByText("uses left must be a whole number ≥ 0", { exact: true }).waitFor();
    expect(await form.locator(".field-error").count()).toBe(2);
  });

  it("every problem of a new entry shows at once, each next to its field (aria-invalid, described by its reason), and in a summary; Add stays disabled", async () => {
    const { a, page } = await open();
    await page.getByRole("button", { name: "Add entry" }).click();
    const form = page.getByRole("form", { name: "New allowlist entry" });
    const fields = {
      pattern: form.getByLabel("Program (pattern)"),
      args: form.getByLabel("Arguments (regular expression)"),
      cwd: form.getByLabel("Only in folders matching"),
      uses: form.getByLabel("Uses left"),
    };
    await fields.pattern.fill("bin/*");
    await fields.args.fill("^(-la");
    await fields.cwd.fill("Projects/**");
    await fields.uses.fill("lots");
    const summary = form.getByTestId("entry-problems");
    await summary.getByText("This entry cannot be saved yet: 4 problems.").waitFor();
    const reasons = {
      pattern: "pattern must be an absolute path or start with ~/",
      args: /^argPattern is not a valid regular expression/,
      cwd: "cwd must be an absolute path or start with ~/",
      uses: "uses left must be a whole number ≥ 0",
    };
    for (const [key, field] of Object.entries(fields) as Array<
      [keyof typeof fields, (typeof fields)["pattern"]]
    >) {
      expect(await field.getAttribute("aria-invalid")).toBe("true");
      // The field is described by the line that gives its reason.
      const describedBy = await field.getAttribute("aria-describedby");
      const line = form.locator(`[id="${describedBy}"]`);
      const reason = reasons[key];
      if (typeof reason === "string") await expect(line.textContent()).resolves.toBe(reason);
      else expect(await line.textContent()).toMatch(reason);
    }
    await expect(summary.locator("li").allTextContents()).resolves.toEqual([
      "Program: pattern must be an absolute path or start with ~/",
      expect.stringMatching(/^Arguments: argPattern is not a valid regular expression/),
      "Folders: cwd must be an absolute path or start with ~/",
      "Uses left: uses left must be a whole number ≥ 0",
    ]);
    expect(await form.getByRole("button", { name: "Add entry" }).isDisabled()).toBe(true);
    // Fixing one leaves the others listed.
    await fields.args.fill("^-la$");
    await summary.getByText("This entry cannot be saved yet: 3 problems.").waitFor();
    expect(await fields.args.getAttribute("aria-invalid")).toBe("false");
    expect(await sharedEntries(a)).toEqual([]);
  });

  it("a program that does not exist today is a warning next to the pattern, not an error: the entry can still be added", async () => {
    const { a, page } = await open();
    await page.getByRole("button", { name: "Add entry" }).click();
    const form = page.getByRole("form", { name: "New allowlist entry" });
    const pattern = form.getByLabel("Program (pattern)");
    const missing = `${a.t.home}/bin/not-installed-yet`;
    await pattern.fill(missing);
    const line = form.locator(`[id="${await pattern.getAttribute("aria-describedby")}"]`);
    await waitFor(
      async () => ((await line.textContent()) ?? "").startsWith("Warning: There is no program at"),
      {
        what: "the missing-program warning",
      },
    );
    await expect(line.textContent()).resolves.toContain(`There is no program at ${missing} today`);
    expect(await line.getAttribute("class")).toBe("field-warning");
    expect(await pattern.getAttribute("aria-invalid")).toBe("false");
    expect(await form.getByTestId("entry-problems").count()).toBe(0);
    const submit = form.getByRole("button", { name: "Add entry" });
    await waitFor(async () => !(await submit.isDisabled()), { what: "the Add button to enable" });
    await submit.click();
    await page.getByRole("status").getByText("Entry added.").waitFor();
    expect(await sharedEntries(a)).toEqual([expect.objectContaining({ pattern: missing })]);
    // A real program gets no warning.
    await page.getByRole("button", { name: "Add entry" }).click();
    await form.getByLabel("Program (pattern)").fill(realProgram("ls"));
    await waitFor(async () => !(await form.getByRole("button", { name: "Add entry" }).isDisabled()), {
      what: "the Add button to enable",
    });
    expect(await form.locator(".field-warning").count()).toBe(0);
  });

  it("a long path wraps at its slashes, never inside a name, in a narrow window", async () => {
    const app = await suite.startApp({
      approvals: { defaults: { security: "allowlist", ask: "on-miss", askFallback: "deny" } },
    });
    const long = "/usr/local/lib/node_modules/some-package/node_modules/.bin/some-tool-with-a-long-name";
    await app.services.approvals.addEntry("*", { pattern: long });
    const { page } = await suite.open(app, "allowlist", { viewport: { width: 780, height: 700 } });
    const cell = page.locator(".entries .path", { hasText: "some-tool-with-a-long-name" }).first();
    await cell.waitFor();
    await expect(cell.textContent()).resolves.toBe(long);
    // Every line but the last ends with "/": the text before each line break, read from the layout.
    const lineEnds = (await cell.evaluate((el) => {
      const doc = el.ownerDocument;
      const walker = doc.createTreeWalker(el, 4);
      const ends: string[] = [];
      let lastTop: number | null = null;
      let previous = "";
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        for (let i = 0; i < text.length; i++) {
          const range = doc.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const top = range.getClientRects()[0]?.top ?? 0;
          if (lastTop !== null && top > lastTop + 1) ends.push(previous);
          lastTop = top;
          previous = text[i] ?? "";
        }
      }
      return ends;
    })) as string[];
    expect(lineEnds.length).toBeGreaterThan(0);
    expect(lineEnds.filter((c) => c !== "/")).toEqual([]);
  });

  it("shows edits made elsewhere without reopening, greyed out when expired", async () => {
    const { a, page } = await open();
    await a.services.approvals.addEntry("*", { pattern: "/usr/bin/old-tool", expiresAt: 1 });
    const row = page.locator("tr", { hasText: "/usr/bin/old-tool" });
    await row.waitFor();
    expect(await row.getAttribute("class")).toContain("inactive");
    await row.getByText("expired").waitFor();
  });

  it("the test box explains a typed command live: which parts are covered and the outcome", async () => {
    const { a, page } = await open();
    await a.services.approvals.addEntry("*", { pattern: realProgram("ls") });
    const result = page.getByTestId("test-result");
    await page.getByLabel("Command", { exact: true }).fill("ls -la");
    await result.getByText("Runs without asking").waitFor();
    await result.getByText("Every part of the command is on the allowlist.").waitFor();

    await page.getByLabel("Command", { exact: true }).fill("ls -la > listing.txt");
    await result.getByText("Asks you first").waitFor();
    await result.getByText("writes output to a file").waitFor();

    await page.getByLabel("Command", { exact: true }).fill("ls && rm -rf build");
    await result.getByText("Asks you first").waitFor();
    await result.getByText(/Not covered:/).waitFor();
  });

  it("changes an agent's settings with plain-language descriptions, written to the file", async () => {
    const { a, page } = await open();
    await page.getByRole("button", { name: /^codex/ }).click();
    await page.getByRole("heading", { name: "Settings for codex" }).waitFor();
    const ask = page.locator("#setting-codex-ask");
    await ask.selectOption("always");
    await page.getByText("Ask me before every command.").waitFor();
    await waitFor(
      async () => {
        const file = ApprovalsFileSchema.parse(JSON.parse(await fs.readFile(a.t.paths.approvals, "utf8")));
        return file.agents.codex?.ask === "always";
      },
      { what: "ask=always for codex in the file" },
    );
  });
});
