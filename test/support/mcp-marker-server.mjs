// A real stdio MCP server for tests of MCP tool calls through the gate: one tool, `mark`, that writes
// its `note` into the marker file named by the first argument, so a test sees whether a call ran.
// Newline-delimited JSON-RPC 2.0, as the MCP stdio transport specifies. Run: node mcp-marker-server.mjs FILE
import fs from "node:fs";
import readline from "node:readline";

const marker = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function answer(method, params) {
  switch (method) {
    case "initialize":
      return {
        protocolVersion: typeof params?.protocolVersion === "string" ? params.protocolVersion : "2025-06-18",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "marker", version: "1.0.0" },
      };
    case "tools/list":
      return {
        tools: [
          {
            name: "mark",
            description: "Writes the note into the marker file.",
            inputSchema: {
              type: "object",
              properties: { note: { type: "string" } },
              additionalProperties: false,
            },
          },
        ],
      };
    case "tools/call":
      fs.writeFileSync(marker, String(params?.arguments?.note ?? ""));
      return { content: [{ type: "text", text: "marked" }] };
    default:
      return null;
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return; // a notification
  const result = answer(message.method, message.params);
  if (result === null)
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "unknown method" } });
  else send({ jsonrpc: "2.0", id: message.id, result });
});
