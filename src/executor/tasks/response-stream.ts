// The task event stream of one run (device-protocol.md §6.2) with its rules enforced in one place:
// `response.created` first, then progress notes, text deltas with code-point offsets and tool blocks,
// then exactly one terminal event (completed, error or incomplete) and nothing after it.
import type { TaskEventSink } from "../../core/tasks/task-registry.js";
import {
  blockEvent,
  outputTextDelta,
  reasoningSummaryDelta,
  responseCompleted,
  responseCreated,
  responseIncomplete,
  taskError,
  type TaskRun,
  type ToolBlock,
} from "../../core/tasks/task-events.js";

/** Tool input and output larger than this are cut (the backend takes at most 1,000,000 bytes per message). */
export const BLOCK_TEXT_LIMIT = 16_000;
/** Longer answer text goes out in several deltas. */
export const DELTA_CHUNK_CODE_POINTS = 32_000;
/** Between two separate answer messages, so the joined text reads as paragraphs. */
export const MESSAGE_SEPARATOR = "\n\n";

export type TerminalKind = "completed" | "error" | "incomplete";

function cut(text: string, limit = BLOCK_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  // Never leave half of a surrogate pair at the cut.
  const safe = /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
  return `${safe}\n... (truncated)`;
}

function boundedInput(input: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    return "[unserialisable input]";
  }
  if (json === undefined) return {};
  return json.length <= BLOCK_TEXT_LIMIT ? input : cut(json);
}

export class ResponseStream {
  private codePoints = 0;
  private readonly texts: string[] = [];
  private readonly blocks = new Map<string, ToolBlock>();
  private createdSent = false;
  private terminal: TerminalKind | null = null;

  constructor(
    readonly run: TaskRun,
    private readonly sink: TaskEventSink,
  ) {}

  get ended(): TerminalKind | null {
    return this.terminal;
  }

  /** All answer text sent so far (`FULL` of §6.2). */
  get fullText(): string {
    return this.texts.join("");
  }

  created(): void {
    if (this.createdSent || this.terminal) return;
    this.createdSent = true;
    this.sink.emit("response.created", responseCreated(this.run));
  }

  /** A progress note before or during the run (workdir fallback, folder change). */
  note(text: string): void {
    if (!this.open() || !text) return;
    this.sink.emit("response.reasoning_summary_text.delta", reasoningSummaryDelta(this.run, text));
  }

  /** One answer message; a later message is separated from the earlier text by a blank line. */
  message(text: string): void {
    if (!this.open() || !text) return;
    const full = this.texts.length > 0 ? `${MESSAGE_SEPARATOR}${text}` : text;
    const points = [...full];
    for (let i = 0; i < points.length; i += DELTA_CHUNK_CODE_POINTS) {
      const delta = points.slice(i, i + DELTA_CHUNK_CODE_POINTS).join("");
      this.sink.emit("response.output_text.delta", outputTextDelta(this.run, delta, this.codePoints));
      this.codePoints += Math.min(DELTA_CHUNK_CODE_POINTS, points.length - i);
      this.texts.push(delta);
    }
  }

  toolStarted(id: string, name: string, input: unknown): void {
    if (!this.open() || this.blocks.has(id)) return;
    const block: ToolBlock = { id, kind: "tool", name, input: boundedInput(input), status: "running" };
    this.blocks.set(id, block);
    this.sink.emit("response.block.created", blockEvent(this.run, "response.block.created", block));
  }

  toolFinished(id: string, name: string, input: unknown, output: string, isError: boolean): void {
    if (!this.open()) return;
    if (!this.blocks.has(id)) this.toolStarted(id, name, input);
    const block: ToolBlock = {
      ...this.blocks.get(id)!,
      output: cut(output),
      status: isError ? "failed" : "completed",
    };
    this.blocks.set(id, block);
    this.sink.emit("response.block.updated", blockEvent(this.run, "response.block.updated", block));
  }

  /** Ends with `response.completed`: the joined deltas, else the runtime's own final text. */
  completed(runtimeText: string | null): boolean {
    if (!this.beginTerminal("completed")) return false;
    const full = this.texts.length > 0 ? this.fullText : (runtimeText ?? "");
    this.sink.emit("response.completed", responseCompleted(this.run, full), { terminal: true });
    return true;
  }

  failed(message: string, code = "runtime_error"): boolean {
    if (!this.beginTerminal("error")) return false;
    this.sink.emit("error", taskError(this.run, message, code), { terminal: true });
    return true;
  }

  incomplete(message: "Task cancelled" | "Task session closed"): boolean {
    if (!this.beginTerminal("incomplete")) return false;
    this.sink.emit("response.incomplete", responseIncomplete(this.run, message), { terminal: true });
    return true;
  }

  private open(): boolean {
    if (this.terminal) return false;
    this.created();
    return true;
  }

  private beginTerminal(kind: TerminalKind): boolean {
    if (this.terminal) return false;
    this.created();
    this.terminal = kind;
    return true;
  }
}
