// A scripted OpenAI Responses API on 127.0.0.1: the model provider stand-in for running the real Codex
// CLI in tests (agent-cli-notes.md "Codex"). It is the only fake in those tests: a `script` decides
// each turn (a function call such as a shell command, or a final message). Every request body is
// recorded so tests can look at what Codex sent back (e.g. a command's output).
//
// Codex is pointed at it with `-c model_provider=fake -c model_providers.fake.base_url=<url>/v1 …`
// (see `codexProviderArgs`) and the key in FAKE_KEY; it posts to `/v1/responses` with `"stream": true`
// and reads Server-Sent Events.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ResponsesRequest {
  model?: string;
  stream?: boolean;
  tools?: Array<{ type?: string; name?: string; [key: string]: unknown }>;
  input?: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

export type ScriptedResponse =
  | { text: string }
  | {
      functionCall: {
        name: string;
        arguments: Record<string, unknown>;
        callId?: string;
        /** The tool namespace of a namespaced tool (e.g. `multi_agent_v1` for `spawn_agent`). */
        namespace?: string;
      };
    }
  /** A freeform (custom) tool call, as Codex's `apply_patch` is offered to OpenAI models. */
  | { customCall: { name: string; input: string; callId?: string } };

export type ResponsesScript = (request: ResponsesRequest, turn: number) => ScriptedResponse;

export interface ScriptedOpenAi {
  /** Base URL including `/v1`, for `model_providers.<id>.base_url`. */
  baseUrl: string;
  /** Every POST /v1/responses body, in arrival order. */
  requests: ResponsesRequest[];
  /** `function_call_output` items Codex sent back, in order. */
  functionOutputs(): Array<{ call_id?: string; output?: unknown }>;
  /** Holds every later response until `release()` (a model that is still thinking). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** The `-c` overrides that point Codex at this endpoint (test-only; never a production default). */
export function codexProviderArgs(baseUrl: string): string[] {
  return [
    "-c",
    "model_provider=fake",
    "-c",
    'model_providers.fake.name="fake"',
    "-c",
    `model_providers.fake.base_url=${JSON.stringify(baseUrl)}`,
    "-c",
    'model_providers.fake.wire_api="responses"',
    "-c",
    'model_providers.fake.env_key="FAKE_KEY"',
    "-c",
    "model_providers.fake.request_max_retries=0",
    "-c",
    "model_providers.fake.stream_max_retries=0",
    "-c",
    'model="fake-model"',
  ];
}

/** `function_call_output` items in a request's input. */
export function functionOutputsOf(request: ResponsesRequest): Array<{ call_id?: string; output?: unknown }> {
  return (request.input ?? []).filter((item) => item.type === "function_call_output") as Array<{
    call_id?: string;
    output?: unknown;
  }>;
}

/** Call one function (tool), then finish with `finalText` once its output comes back. */
export function callThenText(
  call: { name: string; arguments: Record<string, unknown> },
  finalText: string,
): ResponsesScript {
  return (request) => (functionOutputsOf(request).length > 0 ? { text: finalText } : { functionCall: call });
}

let counter = 0;

function sse(event: string, data: object): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

function responseEvents(reply: ScriptedResponse, model: string): string[] {
  const responseId = `resp_scripted_${++counter}`;
  const base = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  const out: string[] = [
    sse("response.created", { response: { ...base, status: "in_progress", output: [] } }),
  ];
  let item: Record<string, unknown>;
  if ("functionCall" in reply) {
    item = {
      type: "function_call",
      id: `fc_scripted_${counter}`,
      call_id: reply.functionCall.callId ?? `call_scripted_${counter}`,
      name: reply.functionCall.name,
      ...(reply.functionCall.namespace ? { namespace: reply.functionCall.namespace } : {}),
      arguments: JSON.stringify(reply.functionCall.arguments),
      status: "completed",
    };
    out.push(sse("response.output_item.added", { output_index: 0, item: { ...item, arguments: "" } }));
  } else if ("customCall" in reply) {
    item = {
      type: "custom_tool_call",
      id: `ctc_scripted_${counter}`,
      call_id: reply.customCall.callId ?? `call_scripted_${counter}`,
      name: reply.customCall.name,
      input: reply.customCall.input,
      status: "completed",
    };
    out.push(sse("response.output_item.added", { output_index: 0, item: { ...item, input: "" } }));
  } else {
    const itemId = `msg_scripted_${counter}`;
    item = {
      type: "message",
      id: itemId,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    };
    out.push(
      sse("response.output_item.added", {
        output_index: 0,
        item: { ...item, status: "in_progress", content: [] },
      }),
      sse("response.output_text.delta", {
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        delta: reply.text,
      }),
    );
  }
  out.push(
    sse("response.output_item.done", { output_index: 0, item }),
    sse("response.completed", {
      response: {
        ...base,
        status: "completed",
        output: [item],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      },
    }),
  );
  return out;
}

export async function startScriptedOpenAi(script: ResponsesScript): Promise<ScriptedOpenAi> {
  const requests: ResponsesRequest[] = [];
  let turn = 0;
  let held: Array<() => void> | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (req.method === "GET" && url.pathname.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
        return;
      }
      if (req.method !== "POST" || !url.pathname.endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not here"}}');
        return;
      }
      let body: ResponsesRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ResponsesRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push(body);
      const reply = script(body, turn++);
      const send = () => {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const event of responseEvents(reply, body.model ?? "fake-model")) res.write(event);
        res.end();
      };
      if (held) held.push(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    functionOutputs: () => requests.flatMap(functionOutputsOf),
    hold() {
      held ??= [];
    },
    release() {
      const pending = held ?? [];
      held = null;
      for (const send of pending) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
