// `gatehouse skills mcp --task ID`: the Gatehouse Skill tool as a stdio MCP server (docs/decisions.md
// "Skills for agents"). Each agent process of a task starts one; it offers the single tool `Skill` and
// hands every call to the running Gatehouse over the approval socket (`skill.call`), whose engine holds
// the task's snapshot, active skills and tool registry (skills.md §9–§10). It reads skills, nothing else.
// Newline-delimited JSON-RPC 2.0, as the MCP stdio transport specifies.
import readline from "node:readline";
import { z } from "zod";
import { requestOnce } from "../approval-server/client.js";
import { SKILL_TOOL } from "../core/skills/skill-tool.js";
import type { CliContext } from "./context.js";

/** The newest MCP protocol revision this server speaks; an older one a client asks for is echoed. */
const PROTOCOL_VERSION = "2025-06-18";
const KNOWN_VERSIONS = new Set(["2024-11-05", "2025-03-26", "2025-06-18"]);
const SKILL_CALL_TIMEOUT_MS = 30_000;

const SKILL_TOOL_DEFINITION = {
  name: SKILL_TOOL,
  description:
    "Load a skill from the <available_skills> index: activate returns its full instructions as an " +
    "<active_skill> block; deactivate drops it; list names the skills you can activate.",
  inputSchema: {
    type: "object",
    properties: {
      skill: { type: "string", description: "The exact name of a skill from the index." },
      action: {
        type: "string",
        enum: ["activate", "deactivate", "list"],
        description: "activate (the default), deactivate, or list.",
      },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

const MessageSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.looseObject({}).optional(),
});

const CallParamsSchema = z.looseObject({
  name: z.string(),
  arguments: z.looseObject({}).optional(),
});

type Reply = { result: unknown } | { error: { code: number; message: string } };

export interface SkillMcpOptions {
  /** `task:<id>`: the agent session whose skills this server serves. */
  sessionKey: string;
}

async function callSkill(ctx: CliContext, options: SkillMcpOptions, args: Record<string, unknown>) {
  const reply = await requestOnce(
    ctx.paths,
    "skill.call",
    { sessionKey: options.sessionKey, args },
    { timeoutMs: SKILL_CALL_TIMEOUT_MS },
  );
  if (reply.status === "ok") return reply.body;
  const why = reply.status === "unavailable" ? reply.reason : `${reply.code}: ${reply.message}`;
  return { text: `Skills are unavailable: Gatehouse did not answer (${why}).`, isError: true };
}

async function answer(
  ctx: CliContext,
  options: SkillMcpOptions,
  method: string,
  params: Record<string, unknown>,
): Promise<Reply> {
  switch (method) {
    case "initialize": {
      const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
      return {
        result: {
          protocolVersion: KNOWN_VERSIONS.has(asked) ? asked : PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "gatehouse-skills", version: "1" },
        },
      };
    }
    case "ping":
      return { result: {} };
    case "tools/list":
      return { result: { tools: [SKILL_TOOL_DEFINITION] } };
    case "tools/call": {
      const call = CallParamsSchema.safeParse(params);
      if (!call.success) return { error: { code: -32602, message: "tools/call needs a tool name" } };
      if (call.data.name !== SKILL_TOOL) {
        return { error: { code: -32602, message: `Unknown tool: ${call.data.name}` } };
      }
      const result = await callSkill(ctx, options, call.data.arguments ?? {});
      return { result: { content: [{ type: "text", text: result.text }], isError: result.isError } };
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

/** Serves until stdin ends. Requests are answered in arrival order. */
export async function serveSkillMcp(ctx: CliContext, options: SkillMcpOptions): Promise<number> {
  const lines = readline.createInterface({ input: ctx.stdin, crlfDelay: Infinity });
  const write = (message: object) => ctx.stdout.write(`${JSON.stringify(message)}\n`);
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let parsed: z.infer<typeof MessageSchema>;
    try {
      parsed = MessageSchema.parse(JSON.parse(line));
    } catch {
      write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      continue;
    }
    // Notifications (no id) and replies to nothing we asked need no answer.
    if (parsed.id === undefined || parsed.method === undefined) continue;
    const reply = await answer(ctx, options, parsed.method, parsed.params ?? {});
    write({ jsonrpc: "2.0", id: parsed.id, ...reply });
  }
  return 0;
}
