// `gatehouse workdir …`: resolve a task's workdir like a real turn, check a path, and manage roots,
// task bindings and repo bindings (workdir.md §11).
import {
  WorkdirService,
  WorkdirFatal,
  type RootInfo,
  type WorkdirResolution,
} from "../../core/workdir/index.js";
import { parseCommandArgs } from "../args.js";
import { printJson, printLine, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE = [
  "gatehouse workdir <subcommand> [--json]",
  "  resolve --task ID [--device ID] [--policy P] [--path DIR] [--repo URL] [--branch B]",
  "  check PATH [--task ID]            (exit 1 when the path cannot be used)",
  "  roots | roots add PATH | roots remove PATH",
  "  bindings | bindings remove --task ID [--device ID]",
  "  repos | repos add --dir DIR [--repo URL] [--branch B] | repos remove --repo KEY --branch B",
].join("\n");

type Values = Record<string, string | boolean | undefined>;

function parse(args: string[], options: Record<string, { type: "string" | "boolean" }>) {
  const { values, positionals } = parseCommandArgs({
    args,
    options: { json: { type: "boolean" }, ...options },
    allowPositionals: true,
    strict: true,
  });
  return { values: values as Values, positionals };
}

function str(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

function requireArg(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`${what} is required`);
  return value;
}

function noExtra(positionals: string[], expected: number): void {
  if (positionals.length > expected) throw new UsageError(`unexpected argument "${positionals[expected]}"`);
}

async function openService(ctx: CliContext, deviceId?: string): Promise<WorkdirService> {
  const service = new WorkdirService({ paths: ctx.paths, env: ctx.env, logger: ctx.logger, deviceId });
  await service.init();
  return service;
}

function printResolution(ctx: CliContext, r: WorkdirResolution): void {
  printLine(ctx, `cwd:     ${r.cwd}`);
  printLine(
    ctx,
    `policy:  ${r.policyApplied}${r.policyApplied !== r.policyRequested ? ` (requested ${r.policyRequested})` : ""}`,
  );
  if (r.requested) printLine(ctx, `request: ${r.requested}`);
  if (r.root) printLine(ctx, `root:    ${r.root}`);
  if (r.created) printLine(ctx, "created: yes");
  if (r.fallback) printLine(ctx, `fallback (${r.fallback.code}): ${r.fallback.message}`);
  for (const notice of r.notices) printLine(ctx, `notice:  ${notice}`);
}

function printRoots(ctx: CliContext, roots: RootInfo[]): void {
  for (const root of roots) {
    const status = root.status === "active" ? "active" : `${root.status}: ${root.reason}`;
    const real = root.realpath && root.realpath !== root.given ? ` → ${root.realpath}` : "";
    printLine(
      ctx,
      `${root.source.padEnd(9)} ${root.given}${real}  [${status}]${root.case_insensitive ? " (case-insensitive)" : ""}`,
    );
  }
}

async function resolveCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args, {
    task: { type: "string" },
    device: { type: "string" },
    policy: { type: "string" },
    path: { type: "string" },
    repo: { type: "string" },
    branch: { type: "string" },
  });
  noExtra(positionals, 0);
  const taskId = requireArg(str(values, "task"), "--task");
  const service = await openService(ctx, str(values, "device"));
  try {
    const { resolution } = await service.resolveForTask({
      taskId,
      workdir: str(values, "path"),
      policy: str(values, "policy"),
      gitUrl: str(values, "repo"),
      branch: str(values, "branch"),
    });
    if (values.json) printJson(ctx, resolution);
    else printResolution(ctx, resolution);
    return 0;
  } catch (error) {
    if (!(error instanceof WorkdirFatal)) throw error;
    if (values.json) printJson(ctx, { error: { code: error.code, message: error.message } });
    ctx.stderr.write(`gatehouse workdir: ${error.message}${error.detail ? ` (${error.detail})` : ""}\n`);
    return 1;
  }
}

async function checkCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args, { task: { type: "string" } });
  noExtra(positionals, 1);
  const target = requireArg(positionals[0], "PATH");
  const service = await openService(ctx);
  const result = await service.checkPath(target, { taskId: str(values, "task") ?? null });
  if (values.json) printJson(ctx, result);
  else {
    printLine(ctx, result.message);
    if (result.lexical) printLine(ctx, `lexical:  ${result.lexical}`);
    if (result.resolved) printLine(ctx, `resolved: ${result.resolved}`);
    if (result.root) printLine(ctx, `root:     ${result.root}`);
  }
  return result.ok ? 0 : 1;
}

async function rootsCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args, {});
  const [action, target] = positionals;
  noExtra(positionals, action ? 2 : 0);
  const service = await openService(ctx);
  if (!action) {
    const roots = await service.roots();
    if (values.json) printJson(ctx, roots);
    else printRoots(ctx, roots);
    return 0;
  }
  if (action !== "add" && action !== "remove") throw new UsageError(`unknown roots action "${action}"`);
  const path = requireArg(target, "PATH");
  const result = action === "add" ? await service.addRoot(path) : await service.removeRoot(path);
  if (values.json) printJson(ctx, result);
  if (!result.ok) {
    ctx.stderr.write(
      `gatehouse workdir: ${path} ${action === "add" ? "refused" : "not removed"}: ${result.reason}\n`,
    );
    return 1;
  }
  if (!values.json) printRoots(ctx, result.roots);
  return 0;
}

async function bindingsCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args, { task: { type: "string" }, device: { type: "string" } });
  const [action] = positionals;
  noExtra(positionals, action ? 1 : 0);
  const service = await openService(ctx);
  if (!action) {
    const bindings = await service.bindings();
    if (values.json) printJson(ctx, bindings);
    else if (bindings.length === 0) printLine(ctx, "No task bindings.");
    else {
      for (const b of bindings) {
        const used = new Date(b.used_at).toISOString();
        const fallback = b.fallback ? ` (fallback ${b.fallback.code})` : "";
        printLine(
          ctx,
          `${b.task_id} on ${b.device_id}: ${b.cwd} [${b.policy_applied}${fallback}] last used ${used}`,
        );
      }
    }
    return 0;
  }
  if (action !== "remove") throw new UsageError(`unknown bindings action "${action}"`);
  const taskId = requireArg(str(values, "task"), "--task");
  const removed = await service.removeBinding(taskId, str(values, "device") ?? service.deviceId);
  if (values.json) printJson(ctx, { removed });
  else
    printLine(
      ctx,
      removed ? `Removed the binding of task ${taskId}.` : `Task ${taskId} has no binding on this device.`,
    );
  return removed ? 0 : 1;
}

async function reposCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(args, {
    dir: { type: "string" },
    repo: { type: "string" },
    branch: { type: "string" },
  });
  const [action] = positionals;
  noExtra(positionals, action ? 1 : 0);
  const service = await openService(ctx);
  if (!action) {
    const repos = await service.repoBindings();
    if (values.json) printJson(ctx, repos);
    else if (repos.length === 0) printLine(ctx, "No repo bindings.");
    else for (const r of repos) printLine(ctx, `${r.repo} (${r.branch}) → ${r.dir} [${r.origin}]`);
    return 0;
  }
  if (action === "add") {
    const dir = requireArg(str(values, "dir"), "--dir");
    const result = await service.addRepoBinding({
      dir,
      repo: str(values, "repo"),
      branch: str(values, "branch"),
    });
    if (values.json) printJson(ctx, result);
    if (!result.ok) {
      ctx.stderr.write(`gatehouse workdir: ${dir} not linked: ${result.reason}\n`);
      return 1;
    }
    if (!values.json)
      printLine(ctx, `Linked ${result.binding.repo} (${result.binding.branch}) → ${result.binding.dir}`);
    return 0;
  }
  if (action === "remove") {
    const repo = requireArg(str(values, "repo"), "--repo");
    const branch = requireArg(str(values, "branch"), "--branch");
    const removed = await service.removeRepoBinding(repo, branch);
    if (values.json) printJson(ctx, { removed });
    else
      printLine(ctx, removed ? `Removed ${repo} (${branch}).` : `No repo binding for ${repo} (${branch}).`);
    return removed ? 0 : 1;
  }
  throw new UsageError(`unknown repos action "${action}"`);
}

const SUBCOMMANDS: Record<string, (args: string[], ctx: CliContext) => Promise<number>> = {
  resolve: resolveCommand,
  check: checkCommand,
  roots: rootsCommand,
  bindings: bindingsCommand,
  repos: reposCommand,
};

export const command: CommandSpec = {
  name: "workdir",
  summary: "Resolve and check per-session working folders, roots and bindings",
  usage: USAGE,
  run: async (args, ctx) => {
    const [sub, ...rest] = args;
    if (!sub) throw new UsageError("a subcommand is required");
    const handler = SUBCOMMANDS[sub];
    if (!handler) throw new UsageError(`unknown subcommand "${sub}"`);
    return handler(rest, ctx);
  },
};
