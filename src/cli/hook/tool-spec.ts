// One row of a runtime's tool table (claude-tools.ts, codex-tools.ts): what the tool does in plain words,
// a strict schema of its input, and what a call is once its input is understood. The positive model of
// exec-policy.md "Tool calls other than a shell string": a tool not in the table, a field its schema does
// not know, or a value it does not understand is a call for a person. zod/mini: the hook loads every
// table on every call (issue 12).
import { z } from "zod/mini";
import { builtOnFirstUse } from "../../shared/first-use.js";
import type { ToolCall } from "./tool-call.js";

/** What the table's rows get besides the input: where the call happens. */
export interface ToolContext {
  /** The folder the runtime says the call happens in (its hook input's `cwd`, absolute). */
  cwd: string;
  /** The task's working folder (`--workdir`), when the hook knows it. */
  workdir?: string;
}

export interface ToolSpec<S extends z.ZodMiniType = z.ZodMiniType> {
  /** Plain words for the person: what the tool does. */
  what: string;
  /** Strict: an unknown field fails it. Built on first use: a hook decides one call per process. */
  input(): S;
  call(input: z.output<S>, ctx: ToolContext): ToolCall | Promise<ToolCall>;
}

/**
 * A table row with its input type checked against its schema. The schema is built when a call of the tool
 * is first read: a hook decides one call per process, so building the ~60 rows' schemas up front was
 * start-up cost for nothing (docs/decisions.md "Tool tables").
 */
export function tool<S extends z.ZodMiniType>(
  what: string,
  input: () => S,
  call: (input: z.output<S>, ctx: ToolContext) => ToolCall | Promise<ToolCall>,
): ToolSpec {
  return { what, input: builtOnFirstUse(input), call: call as ToolSpec["call"] };
}

export type ToolTable = Readonly<Record<string, ToolSpec>>;
export { builtOnFirstUse };

/** A call that runs nothing and touches no file on this machine: allowed, saying why. */
export function harmless(name: string, what: string): ToolCall {
  return { kind: "allow", reason: `Gatehouse allows ${name}: it ${what}.` };
}

/** A call a person decides, with what the tool does and why nobody else can. */
export function person(name: string, what: string, reason: string, input?: unknown): ToolCall {
  return {
    kind: "person",
    tool: name,
    what,
    reason,
    ...(input !== undefined ? { input: inputText(input) } : {}),
  };
}

/** The tool's input as the person sees it (JSON; what cannot be written as JSON is said so). */
export function inputText(input: unknown): string {
  try {
    return JSON.stringify(input) ?? "(no input)";
  } catch {
    return "(an input that cannot be shown as JSON)";
  }
}

interface Issue {
  code: string;
  path: PropertyKey[];
  keys?: string[];
  expected?: string;
  values?: unknown[];
}

function fieldName(path: PropertyKey[]): string {
  return path.length === 0 ? "the input" : `"${path.map(String).join(".")}"`;
}

/** Plain words for why a schema refused an input: the field and what was wrong with it. */
export function issueText(issues: readonly Issue[]): string {
  const issue = issues[0];
  if (!issue) return "its input is not what Gatehouse knows";
  switch (issue.code) {
    case "unrecognized_keys":
      return `its input has ${issue.keys!.length === 1 ? "a field" : "fields"} Gatehouse does not know (${issue
        .keys!.map((k) => `"${k}"`)
        .join(", ")})`;
    case "invalid_type":
      return issue.path.length > 0 && issue.expected === "undefined"
        ? `its input has a field Gatehouse does not know (${fieldName(issue.path)})`
        : `${fieldName(issue.path)} is not ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}`;
    case "invalid_value":
      return `${fieldName(issue.path)} has a value Gatehouse does not understand`;
    default:
      return `${fieldName(issue.path)} is outside what Gatehouse understands`;
  }
}

/**
 * The call as the table understands it: the row's verdict for an input its schema accepts; a call for a
 * person for an unknown tool or an input the schema refuses.
 */
export async function classifyToolCall(
  table: ToolTable,
  name: string,
  input: unknown,
  ctx: ToolContext,
  runtimeName: string,
): Promise<ToolCall> {
  const spec = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!spec) {
    return person(
      name,
      `a tool of ${runtimeName} that Gatehouse does not know`,
      `Gatehouse does not know ${runtimeName}'s tool "${name}", so it cannot tell what the call does`,
      input,
    );
  }
  const parsed = spec.input().safeParse(input);
  if (!parsed.success) {
    return person(
      name,
      spec.what,
      `${issueText(parsed.error.issues as unknown as Issue[])}, so Gatehouse cannot tell all the call does`,
      input,
    );
  }
  return spec.call(parsed.data, ctx);
}

/** Any object: the input of a row that does not read it. */
const AnyInput = z.looseObject({});

/** A row whose every call is harmless: it runs nothing and touches no file on this machine. */
export function harmlessTool(name: string, what: string, input: () => z.ZodMiniType): ToolSpec {
  return tool(what, input, () => harmless(name, what));
}

/** A row whose every call needs a person: Gatehouse cannot judge its effect from its input. */
export function personTool(name: string, what: string, why: string): ToolSpec {
  return tool(
    what,
    () => AnyInput,
    (input) => person(name, what, why, input),
  );
}
