// A scripted Anthropic Messages API on 127.0.0.1: the model provider stand-in for running the real
// Claude Code CLI in tests (agent-cli-notes.md). It is the only fake in those tests: a `script`
// decides each turn (a tool call or a final text); requests without `tools` (side calls such as
// titles) get plain text. Every request body is recorded so tests can look at what Claude Code sent
// back (e.g. the tool_result of a denied command).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  messages: { role: string; content: string | ContentBlock[] }[];
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface ScriptedToolUse {
  name: string;
  input: Record<string, unknown>;
  id?: string;
}

export type ScriptedReply =
  | { text: string }
  | { toolUse: ScriptedToolUse }
  /** Several tool calls in one message (Claude Code runs them as one batch). */
  | { toolUses: ScriptedToolUse[] };

export interface ScriptedAnthropic {
  /** Base URL for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every POST /v1/messages body, in arrival order. */
  requests: MessagesRequest[];
  /** The tool_result blocks Claude Code sent back, in order. */
  toolResults(): ContentBlock[];
  close(): Promise<void>;
}

export type Script = (request: MessagesRequest, turn: number) => ScriptedReply;

/**
 * The conversation's last turn: the last message that is not a `role: "system"` note. Claude Code
 * 2.1.332 may end a request with one ("The user hasn't heard from you in a while…") after the user
 * message that carries the tool results.
 */
export function lastTurnOf(request: MessagesRequest): MessagesRequest["messages"][number] | undefined {
  return request.messages.findLast((m) => m.role !== "system");
}

/** The tool_result blocks in the last user message of a request. */
export function toolResultsOf(request: MessagesRequest): ContentBlock[] {
  const last = lastTurnOf(request);
  if (!last || last.role !== "user" || typeof last.content === "string") return [];
  return last.content.filter((block) => block.type === "tool_result");
}

/** Text of a tool_result's content (string or text blocks). */
export function toolResultText(block: ContentBlock): string {
  if (typeof block.content === "string") return block.content;
  return (block.content ?? []).map((c) => c.text ?? "").join("");
}

/** The common script: call one tool, then finish with `finalText` once its result comes back. */
export function toolThenText(
  tool: { name: string; input: Record<string, unknown> },
  finalText: string,
): Script {
  return (request) => (toolResultsOf(request).length > 0 ? { text: finalText } : { toolUse: tool });
}

let messageCounter = 0;

/** The reply's tool calls with their ids, or null for a text reply. */
function toolUsesOf(reply: ScriptedReply): Array<Required<ScriptedToolUse>> | null {
  const uses = "toolUses" in reply ? reply.toolUses : "toolUse" in reply ? [reply.toolUse] : null;
  return uses?.map((use) => ({ ...use, id: use.id ?? `toolu_scripted_${++messageCounter}` })) ?? null;
}

function sseEvents(reply: ScriptedReply, model: string): { event: string; data: object }[] {
  const id = `msg_scripted_${++messageCounter}`;
  const uses = toolUsesOf(reply);
  const events: { event: string; data: object }[] = [
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    },
  ];
  if (uses) {
    uses.forEach((use, index) => {
      events.push(
        {
          event: "content_block_start",
          data: {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: use.id, name: use.name, input: {} },
          },
        },
        {
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(use.input) },
          },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index } },
      );
    });
  } else {
    events.push(
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: "text" in reply ? reply.text : "" },
        },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    );
  }
  events.push(
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: uses ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return events;
}

function messageJson(reply: ScriptedReply, model: string): object {
  const uses = toolUsesOf(reply);
  const content = uses
    ? uses.map((use) => ({ type: "tool_use", id: use.id, name: use.name, input: use.input }))
    : [{ type: "text", text: "text" in reply ? reply.text : "" }];
  return {
    id: `msg_scripted_${++messageCounter}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: uses ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

export async function startScriptedAnthropic(
  script: Script,
  options: { sideCallText?: string } = {},
): Promise<ScriptedAnthropic> {
  const requests: MessagesRequest[] = [];
  let turn = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method === "HEAD" || (req.method === "GET" && url.pathname === "/")) {
        res.writeHead(200).end();
        return;
      }
      if (req.method !== "POST") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
        return;
      }
      let body: MessagesRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as MessagesRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (url.pathname.endsWith("/count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end('{"input_tokens":10}');
        return;
      }
      if (!url.pathname.endsWith("/v1/messages")) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
        return;
      }
      requests.push(body);
      const model = body.model ?? "claude-scripted";
      const reply: ScriptedReply =
        Array.isArray(body.tools) && body.tools.length > 0
          ? script(body, turn++)
          : { text: options.sideCallText ?? "Scripted title" };
      if (body.stream) {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        });
        for (const e of sseEvents(reply, model))
          res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
        res.end();
      } else {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(messageJson(reply, model)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResults: () => requests.flatMap(toolResultsOf),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The whole environment of a Claude Code run as another user: HOME in `home`, the model at `api`. */
export function claudeEnvFor(home: string, api: { url: string }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SHELL: "/bin/bash",
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "scripted-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
}
