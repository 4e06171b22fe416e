// `gatehouse exec`: decide and run one command through the gate, from a terminal or a script. Nobody
// is asked from here (prompt: null), so askFallback decides what needs a person.
import { ownFilesOf } from "../../core/policy/own-files.js";
import os from "node:os";
import { runReport } from "../../approval-server/exec-result.js";
import { AuditLog } from "../../executor/audit-log.js";
import { gateAndRun, isAllowed, type GateRunResult } from "../../executor/gate.js";
import { MAX_OUTPUT_CAP, type StreamName } from "../../executor/output-capture.js";
import { DEFAULT_TIMEOUT_MS } from "../../executor/run-process.js";
import {
  approvalsStoreAt,
  existingFolderOption,
  nonEmptyOption,
  parseCommandArgs,
  secondsOption,
} from "../args.js";
import { printJson, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE =
  "gatehouse exec [--agent ID] [--session KEY] [--cwd DIR] [--timeout S] [--max-output BYTES] [--shell] [--json] -- COMMAND…";
/** Exit status when the command was refused or did not start (as a shell does for "cannot execute"). */
export const EXIT_REFUSED = 126;
const EXIT_NOT_FOUND = 127;
/** After Ctrl-C (128 + SIGINT), and when the reader of our output went away (128 + SIGPIPE), as shells do. */
const EXIT_INTERRUPTED = 130;
const EXIT_OUTPUT_CLOSED = 141;
const MAX_TIMEOUT_S = 24 * 60 * 60;

interface ExecOptions {
  agentId: string;
  sessionKey: string;
  cwd: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  shell: boolean;
  json: boolean;
  words: string[];
}

function parseOptions(args: string[]): ExecOptions {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: "string" },
      session: { type: "string" },
      cwd: { type: "string" },
      timeout: { type: "string" },
      "max-output": { type: "string" },
      shell: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  if (positionals.length === 0) throw new UsageError("give the command to run after --");
  const timeoutMs = secondsOption("timeout", values.timeout, MAX_TIMEOUT_S);
  let maxOutputBytes: number | undefined;
  if (values["max-output"] !== undefined) {
    const bytes = Number(values["max-output"]);
    if (!Number.isInteger(bytes) || bytes < 0 || bytes > MAX_OUTPUT_CAP) {
      throw new UsageError(
        `--max-output must be a whole number of bytes from 0 to ${MAX_OUTPUT_CAP} (5 MiB)`,
      );
    }
    maxOutputBytes = bytes;
  }
  return {
    agentId: nonEmptyOption("agent", values.agent, "local"),
    sessionKey: nonEmptyOption("session", values.session, "local"),
    cwd: nonEmptyOption("cwd", values.cwd, process.cwd()),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxOutputBytes !== undefined ? { maxOutputBytes } : {}),
    shell: values.shell ?? false,
    json: values.json ?? false,
    words: positionals,
  };
}

/** The exit status a shell would give: the command's own, 128 + signal number when killed. */
export function exitStatusOf(result: GateRunResult): number {
  if (!isAllowed(result.decision)) return EXIT_REFUSED;
  if (result.spawnError) return /command not found$/.test(result.spawnError) ? EXIT_NOT_FOUND : EXIT_REFUSED;
  if (result.exitCode !== null) return result.exitCode;
  const number = result.signal ? os.constants.signals[result.signal as NodeJS.Signals] : undefined;
  return number ? 128 + number : EXIT_REFUSED;
}

/**
 * Prints the command's output through with backpressure. When the reader goes away (`… | head -1`),
 * `onClosed` runs once and nothing more is written.
 */
function passthrough(
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  onClosed: () => void,
) {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  streams.stdout.on("error", close);
  streams.stderr.on("error", close);
  const write = (name: StreamName, chunk: Buffer): Promise<void> | undefined => {
    if (closed) return undefined;
    const stream = streams[name];
    if (stream.write(chunk)) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        stream.off("drain", done);
        stream.off("error", done);
        stream.off("close", done);
        resolve();
      };
      stream.on("drain", done);
      stream.on("error", done);
      stream.on("close", done);
    });
  };
  return {
    write,
    get closed() {
      return closed;
    },
    detach() {
      streams.stdout.off("error", close);
      streams.stderr.off("error", close);
    },
  };
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const options = parseOptions(args);
  const cwd = await existingFolderOption(options.cwd);
  const command = options.shell ? { command: options.words.join(" ") } : { argv: options.words };
  const approvals = approvalsStoreAt(ctx.paths);
  const audit = new AuditLog({ path: ctx.paths.audit });

  // Ctrl-C reaches gatehouse, not the command (it runs in its own process group): cancel the run,
  // which ends the whole tree.
  const controller = new AbortController();
  const cancel = () => controller.abort();
  const output = options.json ? null : passthrough(ctx, cancel);
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.on(signal, cancel);
  const background: Promise<void>[] = [];
  let result: GateRunResult;
  try {
    result = await gateAndRun(
      {
        command,
        agentId: options.agentId,
        sessionKey: options.sessionKey,
        source: "cli",
        cwd,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
        outputMode: "combined",
        signal: controller.signal,
        ...(output ? { onOutput: output.write } : {}),
      },
      {
        approvals,
        audit,
        prompt: null,
        baseEnv: ctx.env,
        settingsFile: ctx.paths.settings,
        ownFiles: ownFilesOf(ctx.paths),
        home: ctx.paths.home,
        now: Date.now,
        logger: ctx.logger,
        background: (work) => background.push(work),
      },
    );
  } finally {
    for (const signal of signals) process.off(signal, cancel);
    output?.detach();
  }

  if (ctx.env.GATEHOUSE_REPORT_RSS === "1") {
    // For the memory acceptance test and benchmark: this process's peak resident set, in bytes.
    ctx.stderr.write(`gatehouse: maxRSS=${process.resourceUsage().maxRSS * 1024}\n`);
  }
  if (options.json) {
    printJson(ctx, {
      runId: result.runId,
      ...runReport(result),
      durationMs: Math.round(result.durationMs * 1000) / 1000,
      ...(result.spawnError ? { error: result.spawnError } : {}),
    });
  } else {
    // A closed output ends the run quietly, as SIGPIPE would.
    if (!output?.closed) reportForPeople(ctx, result, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }
  await Promise.all(background); // usage notes for the allowlist editor, after the result is out
  if (output?.closed && isAllowed(result.decision)) return EXIT_OUTPUT_CLOSED;
  if (controller.signal.aborted && isAllowed(result.decision)) return EXIT_INTERRUPTED;
  return exitStatusOf(result);
}

function reportForPeople(ctx: CliContext, result: GateRunResult, timeoutMs: number): void {
  const say = (text: string) => ctx.stderr.write(`gatehouse exec: ${text}\n`);
  for (const warning of result.warnings) say(warning);
  if (!isAllowed(result.decision)) {
    const what =
      result.decision === "deny" ? "denied" : result.decision === "timeout" ? "not run" : "cancelled";
    say(`${what} (${result.decidedBy}): ${result.reason}`);
    const file = result.explanation.approvalsFile;
    if (file.status === "missing") say("no exec policy is set up yet; run `gatehouse init` to choose a mode");
    if (file.status === "invalid")
      say(`the approvals file is invalid, so nothing runs until it is fixed: ${file.error ?? file.path}`);
    return;
  }
  if (result.spawnError) say(result.spawnError);
  else if (result.timedOut)
    say(`timed out after ${timeoutMs / 1000} s; the command and everything it started were stopped`);
  else if (result.cancelled) say("cancelled; the command and everything it started were stopped");
}

export const command: CommandSpec = {
  name: "exec",
  summary: "Decide and run a command through the exec policy",
  usage: USAGE,
  run,
};
