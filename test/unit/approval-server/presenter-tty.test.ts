import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { PromptBroker } from "../../../src/approval-server/broker.js";
import { createTtyPresenter } from "../../../src/approval-server/presenter-tty.js";
import { waitFor } from "../../support/wait-for.js";
import { makePrompt } from "./prompt-fixture.js";

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.setEncoding("utf8").on("data", (d: string) => (text += d));
  return { input, output, text: () => text };
}

describe("terminal presenter", () => {
  it("prints the prompt with its explanation and reads o / a / d", async () => {
    const term = terminal();
    const broker = new PromptBroker();
    const presenter = createTtyPresenter({ input: term.input, output: term.output });
    broker.attach(presenter);
    const first = broker.request(makePrompt({ command: { argv: ["rm", "-rf", "build"] } }));
    const second = broker.request(makePrompt({ command: { argv: ["other"] } }));
    await waitFor(() => term.text().includes("[d] deny"));
    expect(term.text()).toContain("Gatehouse: approval needed");
    expect(term.text()).toContain("command  rm -rf build");
    expect(term.text()).toContain("/usr/bin/rm, not covered: no allowlist entry matches /usr/bin/rm");
    expect(term.text()).toContain("! writes to out.txt");
    expect(term.text()).toContain("askFallback=deny decides");
    term.input.write("what?\n");
    term.input.write("a\n");
    await expect(first).resolves.toEqual({
      decision: "allow-always",
      entries: [{ pattern: "/usr/bin/rm", segment: 0 }],
    });
    await waitFor(() => term.text().includes("command  other"));
    term.input.write("d\n");
    await expect(second).resolves.toEqual({ decision: "deny" });
    presenter.close();
  });

  it("does not offer allow always under ask=always", async () => {
    const term = terminal();
    const broker = new PromptBroker();
    const presenter = createTtyPresenter({ input: term.input, output: term.output });
    broker.attach(presenter);
    const pending = broker.request(makePrompt({ ask: "always" }));
    await waitFor(() => term.text().includes("[d] deny"));
    expect(term.text()).not.toContain("allow always");
    term.input.write("a\n");
    term.input.write("o\n");
    await expect(pending).resolves.toEqual({ decision: "allow-once" });
    presenter.close();
  });
});
