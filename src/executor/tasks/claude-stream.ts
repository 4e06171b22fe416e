// Claude Code `-p --output-format stream-json --verbose` (agent-cli-notes.md, claude 2.1.197): one JSON
// object per line. `system/init` carries the session id; `assistant` messages carry text and tool_use
// blocks; `user` messages carry the tool_result of each call; `result` ends the turn.
import { parseJsonLine, stringOr, type AgentEvent, type AgentStreamParser } from "./agent-events.js";
import { isRecord } from "../../shared/is-record.js";

/** Text of a tool_result's content: a string, or text blocks (other blocks are named, not inlined). */
export function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      if (!isRecord(part)) return "";
      if (typeof part.text === "string") return part.text;
      return typeof part.type === "string" ? `[${part.type}]` : "";
    })
    .join("");
}

export function createClaudeStreamParser(): AgentStreamParser {
  const tools = new Map<string, { name: string; input: unknown }>();
  return {
    line(text) {
      const message = parseJsonLine(text);
      if (!message) return [];
      const out: AgentEvent[] = [];
      switch (message.type) {
        case "system":
          if (message.subtype === "init" && typeof message.session_id === "string" && message.session_id) {
            out.push({ kind: "session", id: message.session_id });
          }
          if (message.subtype === "init" && Array.isArray(message.tools)) {
            const names = message.tools.filter((t): t is string => typeof t === "string");
            out.push({ kind: "tools", names });
          }
          break;
        case "assistant": {
          const content = isRecord(message.message) ? message.message.content : undefined;
          // A sub-agent's own messages (Task tool) are not the answer; its tool calls still show.
          const nested = typeof message.parent_tool_use_id === "string";
          for (const block of Array.isArray(content) ? content : []) {
            if (!isRecord(block)) continue;
            if (block.type === "text" && typeof block.text === "string" && block.text && !nested) {
              out.push({ kind: "text", text: block.text });
            } else if (block.type === "tool_use" && typeof block.id === "string") {
              const name = stringOr(block.name, "tool");
              tools.set(block.id, { name, input: block.input ?? {} });
              out.push({ kind: "tool-started", id: block.id, name, input: block.input ?? {} });
            }
          }
          break;
        }
        case "user": {
          const content = isRecord(message.message) ? message.message.content : undefined;
          for (const block of Array.isArray(content) ? content : []) {
            if (!isRecord(block) || block.type !== "tool_result" || typeof block.tool_use_id !== "string")
              continue;
            const call = tools.get(block.tool_use_id);
            out.push({
              kind: "tool-finished",
              id: block.tool_use_id,
              name: call?.name ?? "tool",
              input: call?.input ?? {},
              output: toolResultText(block.content),
              isError: block.is_error === true,
            });
          }
          break;
        }
        case "result": {
          if (typeof message.session_id === "string" && message.session_id) {
            out.push({ kind: "session", id: message.session_id });
          }
          const finalText = typeof message.result === "string" ? message.result : null;
          if (message.subtype === "success" && message.is_error !== true) {
            out.push({ kind: "completed", text: finalText });
          } else {
            const errors = Array.isArray(message.errors)
              ? message.errors.filter((e): e is string => typeof e === "string")
              : [];
            const reason =
              finalText?.trim() ||
              errors.join("; ") ||
              `Claude Code ended the turn with ${stringOr(message.subtype, "an error")}`;
            out.push({ kind: "failed", message: reason });
          }
          break;
        }
        default:
          break;
      }
      return out;
    },
  };
}
