// Codex `exec --json` (agent-cli-notes.md, codex-cli 0.169.0): one JSON event per line.
// `thread.started` carries the thread id; `item.started` / `item.completed` carry agent messages,
// commands, MCP tool calls, file changes and web searches; `turn.completed` / `turn.failed` end the
// turn. `error` items and top-level `error` events (a missing-model-metadata warning, "Reconnecting…")
// do not end the turn: they are logged, and the last one explains a turn that ends without a result.
import { parseJsonLine, stringOr, type AgentEvent, type AgentStreamParser } from "./agent-events.js";
import { isRecord } from "../../shared/is-record.js";

const TOOL_ITEMS = new Set(["command_execution", "mcp_tool_call", "file_change", "web_search"]);

interface ToolView {
  name: string;
  input: unknown;
}

function toolView(item: Record<string, unknown>): ToolView {
  switch (item.type) {
    case "command_execution":
      return { name: "shell", input: { command: stringOr(item.command, "") } };
    case "mcp_tool_call": {
      const server = stringOr(item.server, "mcp");
      const tool = stringOr(item.tool, "tool");
      return { name: `${server}.${tool}`, input: item.arguments ?? {} };
    }
    case "file_change":
      return { name: "file_change", input: { changes: item.changes ?? [] } };
    case "web_search":
      return { name: "web_search", input: { query: stringOr(item.query, "") } };
    default:
      return { name: stringOr(item.type, "tool"), input: {} };
  }
}

function mcpResultText(result: unknown): string {
  if (!isRecord(result)) return typeof result === "string" ? result : "";
  const content = result.content;
  if (Array.isArray(content)) {
    return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
  }
  return JSON.stringify(result);
}

function toolOutcome(item: Record<string, unknown>): { output: string; isError: boolean } {
  const failed = item.status === "failed" || item.status === "declined";
  switch (item.type) {
    case "command_execution": {
      const exit = typeof item.exit_code === "number" ? item.exit_code : null;
      return {
        output: stringOr(item.aggregated_output, ""),
        isError: failed || (exit !== null && exit !== 0),
      };
    }
    case "mcp_tool_call": {
      const error = isRecord(item.error) ? stringOr(item.error.message, "") : "";
      return { output: error || mcpResultText(item.result), isError: failed || error !== "" };
    }
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes : [];
      const lines = changes
        .filter(isRecord)
        .map((c) => `${stringOr(c.kind, "update")} ${stringOr(c.path, "")}`.trim());
      return { output: lines.join("\n"), isError: failed };
    }
    default:
      return { output: "", isError: failed };
  }
}

export function createCodexStreamParser(): AgentStreamParser {
  const started = new Set<string>();
  return {
    line(text) {
      const event = parseJsonLine(text);
      if (!event) return [];
      const out: AgentEvent[] = [];
      const item = isRecord(event.item) ? event.item : null;
      const itemId = item && typeof item.id === "string" ? item.id : null;
      switch (event.type) {
        case "thread.started":
          if (typeof event.thread_id === "string" && event.thread_id) {
            out.push({ kind: "session", id: event.thread_id });
          }
          break;
        case "item.started":
          if (item && itemId && TOOL_ITEMS.has(String(item.type)) && !started.has(itemId)) {
            started.add(itemId);
            out.push({ kind: "tool-started", id: itemId, ...toolView(item) });
          }
          break;
        case "item.completed": {
          if (!item) break;
          if (item.type === "agent_message" && typeof item.text === "string" && item.text) {
            out.push({ kind: "text", text: item.text });
          } else if (item.type === "error") {
            out.push({ kind: "warning", message: stringOr(item.message, "Codex reported an error") });
          } else if (itemId && TOOL_ITEMS.has(String(item.type))) {
            const view = toolView(item);
            if (!started.has(itemId)) out.push({ kind: "tool-started", id: itemId, ...view });
            started.delete(itemId);
            out.push({ kind: "tool-finished", id: itemId, ...view, ...toolOutcome(item) });
          }
          break;
        }
        case "turn.completed":
          out.push({ kind: "completed", text: null });
          break;
        case "turn.failed": {
          const error = isRecord(event.error) ? stringOr(event.error.message, "") : "";
          out.push({ kind: "failed", message: error || "Codex reported that the turn failed" });
          break;
        }
        case "error":
          out.push({ kind: "warning", message: stringOr(event.message, "Codex reported an error") });
          break;
        default:
          break;
      }
      return out;
    },
  };
}
