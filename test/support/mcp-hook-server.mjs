// A real stdio MCP server that plays a PreToolUse hook for Codex's `mcp_tool` hooks: one tool, `decide`,
// whose answer is a command hook's stdout (Codex reads it with the command hook's output contract). Every
// `tools/call` arguments object is appended as a JSON line to the log file, so a test sees what Codex sent.
// How it answers is the second argument:
//   deny   — `hookSpecificOutput` with `permissionDecision: "deny"`
//   gone   — answers `tools/list`, then exits before any hook call (the server died between calls)
//   exit   — exits when the hook call comes (the server died during the call)
//   error  — a JSON-RPC error for the hook call
//   silent — never answers the hook call (the hook's timeout runs out)
// Newline-delimited JSON-RPC 2.0, as the MCP stdio transport specifies.
// Run: node mcp-hook-server.mjs LOG MODE
import fs from "node:fs";
import readline from "node:readline";

const [log, mode] = process.argv.slice(2);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const DENY = {
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "deny",
    permissionDecisionReason: "denied by the MCP hook",
  },
};

function hookCall(message) {
  fs.appendFileSync(log, `${JSON.stringify(message.params?.arguments ?? null)}\n`);
  if (mode === "exit") process.exit(0);
  if (mode === "silent") return;
  if (mode === "error") {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: "the gate is broken" } });
    return;
  }
  send({
    jsonrpc: "2.0",
    id: message.id,
    result: { content: [{ type: "text", text: JSON.stringify(DENY) }] },
  });
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return; // a notification
  switch (message.method) {
    case "initialize":
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "gate", version: "1.0.0" },
        },
      });
      return;
    case "tools/list":
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          tools: [
            {
              name: "decide",
              description: "Decides a tool call (a PreToolUse hook).",
              inputSchema: { type: "object", additionalProperties: true },
            },
          ],
        },
      });
      if (mode === "gone") process.stdout.end(() => process.exit(0));
      return;
    case "tools/call":
      hookCall(message);
      return;
    default:
      send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "unknown method" } });
  }
});
