// The terminal presenter (`gatehouse serve --prompt tty`): shows pending prompts one at a time,
// oldest first, and reads `o` (allow once), `a` (allow always) or `d` (deny) from the terminal.
import readline from "node:readline";
import type { PromptAnswer, PromptDecision, PromptRequest } from "../core/policy/types.js";
import type { Presenter } from "./broker.js";
import { choicesText, offersAllowAlways, renderPromptText } from "./prompt-text.js";

export interface TtyPresenterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  now?: () => number;
}

export interface TtyPresenter extends Presenter {
  /** Stops reading the terminal. */
  close(): void;
}

interface Shown {
  prompt: PromptRequest;
  decide: (answer: PromptAnswer) => void;
}

export function createTtyPresenter(options: TtyPresenterOptions): TtyPresenter {
  const now = options.now ?? Date.now;
  const queue: Shown[] = [];
  const lines = readline.createInterface({ input: options.input, terminal: false });
  const write = (text: string) => options.output.write(text);

  const showHead = () => {
    const head = queue[0];
    if (!head) return;
    write(
      `\n${renderPromptText(head.prompt, now(), { index: 1, of: queue.length })}\n${choicesText(head.prompt)}`,
    );
  };

  lines.on("line", (text) => {
    const head = queue[0];
    if (!head) return;
    const key = text.trim().toLowerCase();
    let answer: PromptAnswer | null = null;
    if (key === "o" || key === "allow once") answer = { decision: "allow-once" };
    else if ((key === "a" || key === "allow always") && offersAllowAlways(head.prompt)) {
      answer = { decision: "allow-always", entries: head.prompt.explanation.proposedEntries };
    } else if (key === "d" || key === "deny") answer = { decision: "deny" };
    if (!answer) {
      write(choicesText(head.prompt));
      return;
    }
    head.decide(answer); // the broker calls withdraw(), which moves on to the next prompt
  });

  return {
    kind: "tty",
    show(prompt, decide) {
      queue.push({ prompt, decide });
      if (queue.length === 1) showHead();
    },
    withdraw(id: string, decision: PromptDecision) {
      const index = queue.findIndex((s) => s.prompt.id === id);
      if (index === -1) return;
      queue.splice(index, 1);
      if (index === 0) {
        write(`\n→ ${decision}\n`);
        showHead();
      }
    },
    close() {
      lines.close();
    },
  };
}
