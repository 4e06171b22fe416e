// FAKE model provider for the real Claude Code CLI (agent-cli-notes.md): a scripted Messages API on
// 127.0.0.1. The first real turn asks for one Bash tool call; once a tool_result comes back it answers
// with text. Side calls (no `tools`) get plain text. Every request body is kept for assertions.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeAnthropic {
  url: string;
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

function sse(res: http.ServerResponse, events: Array<Record<string, unknown>>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}

function message(
  blocks: Array<Record<string, unknown>>,
  deltas: Array<Record<string, unknown>>,
  stop: string,
) {
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: `msg_${Math.random().toString(16).slice(2)}`,
        type: "message",
        role: "assistant",
        model: "claude-fake",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    events.push({ type: "content_block_start", index, content_block: block });
    events.push({ type: "content_block_delta", index, delta: deltas[index] });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 1 },
  });
  events.push({ type: "message_stop" });
  return events;
}

function text(value: string) {
  return message([{ type: "text", text: "" }], [{ type: "text_delta", text: value }], "end_turn");
}

function hasToolResult(body: Record<string, unknown>): boolean {
  const messages = (body.messages as Array<{ content: unknown }> | undefined) ?? [];
  const last = messages[messages.length - 1];
  return (
    Array.isArray(last?.content) && last.content.some((c: { type?: string }) => c?.type === "tool_result")
  );
}

export async function startFakeAnthropic(bashCommand: string): Promise<FakeAnthropic> {
  const requests: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.startsWith("/v1/messages")) {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push(body);
      if (!Array.isArray(body.tools) || body.tools.length === 0) return sse(res, text("Title"));
      if (hasToolResult(body)) return sse(res, text("done"));
      const input = JSON.stringify({ command: bashCommand, description: "scripted call" });
      sse(
        res,
        message(
          [{ type: "tool_use", id: "toolu_fake_1", name: "Bash", input: {} }],
          [{ type: "input_json_delta", partial_json: input }],
          "tool_use",
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
