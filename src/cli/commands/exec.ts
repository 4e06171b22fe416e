// `gatehouse exec`: decide and run one command through the gate, from a terminal or a script. A prompt
// goes to the running Gatehouse of this home (the tray app, or `gatehouse serve --prompt tty`) through
// the approval socket when one answers with a person attached; else nobody can be asked (`no-approver`)
// and askFallback decides.
import { ownFilesOf } from "../../core/policy/own-files.js";
import type { PromptFn, RequestedSettings } from "../../core/policy/types.js";
import os from "node:os";
import { PromptBroker } from "../../approval-server/broker.js";
import { requestOnce } from "../../approval-server/client.js";
import { runReport } from "../../approval-server/exec-result.js";
import { createAskViaPresenter } from "../../approval-server/presenter-ask-via.js";
import { refusalText } from "../../core/policy/outcome-text.js";
import { AuditLog } from "../../executor/audit-log.js";
import { gateAndRun, isAllowed, type GateRunResult } from "../../executor/gate.js";
import {
  COMBINED_DEFAULT_CAP,
  MAX_OUTPUT_CAP,
  TRUNCATION_MARKER,
  trimIncompleteUtf8Tail,
  type StreamName,
} from "../../executor/output-capture.js";
import { DEFAULT_TIMEOUT_MS, NO_MORE_OUTPUT } from "../../executor/run-process.js";
import {
  existingFolderOption,
  nonEmptyOption,
  parseCommandLine,
  requestedSettingsOption,
  secondsOption,
} from "../args.js";
import { approvalsStoreAt } from "../../core/approvals/index.js";
import { printJson, UsageError, type CliContext, type CommandSpec } from "../context.js";

const USAGE =
  "gatehouse exec [--agent ID] [--session KEY] [--cwd DIR] [--timeout S] [--max-output BYTES] [--security S] [--ask A] [--shell] [--json] -- COMMAND…";
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
  requested: RequestedSettings;
}

function parseOptions(args: string[]): ExecOptions {
  const { values, positionals } = parseCommandLine(
    args,
    ["agent", "cwd", "timeout", "shell", "json", "security", "ask"],
    { session: { type: "string" }, "max-output": { type: "string" } },
  );
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
    requested: requestedSettingsOption(values),
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
  /** The same combined cap as --json and the audit: beyond it nothing more is printed (the pipes still drain). */
  cap: number,
) {
  let closed = false;
  let left = cap;
  let cut = false;
  /**
   * The start of a character that ends a read within 3 bytes of the cap: printed once the next read
   * of its stream completes it, or the output ends there; dropped when the cap cuts it (as --json does).
   */
  let held: { name: StreamName; bytes: Buffer } | null = null;
  const close = () => {
    if (closed) return;
    closed = true;
    onClosed();
  };
  const release = () => {
    if (held && !closed && !cut) streams[held.name].write(held.bytes);
    held = null;
  };
  streams.stdout.on("error", close);
  streams.stderr.on("error", close);
  const write = (name: StreamName, read: Buffer): Promise<void> | typeof NO_MORE_OUTPUT | undefined => {
    // Nothing more is printed: the run stops handing (copying) chunks to us.
    if (closed || cut) return NO_MORE_OUTPUT;
    const stream = streams[name];
    let whole = read;
    if (held?.name === name) {
      whole = Buffer.concat([held.bytes, read]);
      left += held.bytes.length;
      held = null;
    } else release();
    let chunk = whole;
    if (chunk.length > left) {
      let end = left;
      while (end > 0 && ((chunk[end] ?? 0) & 0xc0) === 0x80) end--; // never split a UTF-8 character
      chunk = Buffer.concat([chunk.subarray(0, end), Buffer.from(TRUNCATION_MARKER + "\n")]);
      cut = true;
    } else if (left - chunk.length < 3) {
      const complete = trimIncompleteUtf8Tail(chunk);
      if (complete.length < chunk.length) {
        held = { name, bytes: Buffer.from(chunk.subarray(complete.length)) };
        chunk = complete;
      }
    }
    left -= Math.min(left, whole.length);
    if (stream.write(chunk)) return cut ? NO_MORE_OUTPUT : undefined;
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
    /** The output ended: a character held at the cap was all there was, so it is printed as it is. */
    finish: release,
    get closed() {
      return closed;
    },
    get cut() {
      return cut;
    },
    detach() {
      streams.stdout.off("error", close);
      streams.stderr.off("error", close);
    },
  };
}

async function run(args: string[], ctx: CliContext): Promise<number> {
  const options = parseOptions(args);
  const cwd = existingFolderOption(options.cwd);
  const command = options.shell ? { command: options.words.join(" ") } : { argv: options.words };
  const approvals = approvalsStoreAt(ctx.paths);
  const audit = new AuditLog({ path: ctx.paths.audit });

  // Ctrl-C reaches gatehouse, not the command (it runs in its own process group): cancel the run,
  // which ends the whole tree.
  const controller = new AbortController();
  const cancel = () => controller.abort();
  const cap = options.maxOutputBytes ?? COMBINED_DEFAULT_CAP;
  const output = options.json ? null : passthrough(ctx, cancel, cap);
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.on(signal, cancel);
  const background: Promise<void>[] = [];
  const prompt = await runningGatehousePrompt(ctx, options.json);
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
        ...(Object.keys(options.requested).length > 0 ? { requested: options.requested } : {}),
        outputMode: "combined",
        signal: controller.signal,
        ...(output ? { onOutput: output.write } : {}),
      },
      {
        approvals,
        audit,
        prompt,
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
    output?.finish();
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
    if (output?.cut && !output.closed)
      ctx.stderr.write(
        `gatehouse exec: output cut after ${cap} bytes, as in --json and the audit log (--max-output raises it, up to 5 MiB)\n`,
      );
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
    say(refusalText(result.decision, result.decidedBy, result.reason, result.explanation));
    const file = result.explanation.approvalsFile;
    if (file.status === "invalid")
      say(`the approvals file is invalid, so nothing runs until it is fixed: ${file.error ?? file.path}`);
    return;
  }
  if (result.spawnError) say(result.spawnError);
  else if (result.timedOut)
    say(`timed out after ${timeoutMs / 1000} s; the command and everything it started were stopped`);
  else if (result.cancelled) say("cancelled; the command and everything it started were stopped");
}

/**
 * The running Gatehouse of this home as the prompt, when it has a person to ask (ping says `ui`): the
 * prompt is forwarded as an `approval.request` (the ask-via presenter), so the tray dialog or the
 * `serve --prompt tty` terminal answers it. Null when none runs or nobody is attached there.
 */
async function runningGatehousePrompt(ctx: CliContext, quiet: boolean): Promise<PromptFn | null> {
  const ping = await requestOnce(ctx.paths, "ping", {}, { timeoutMs: 2_000, connectTimeoutMs: 1_000 });
  if (ping.status !== "ok" || !ping.body.ui) return null;
  const broker = new PromptBroker();
  broker.attach(createAskViaPresenter({ target: ctx.paths, logger: ctx.logger.child("exec") }));
  return (request, signal) => {
    if (!quiet) ctx.stderr.write("gatehouse exec: waiting for a person in the running Gatehouse…\n");
    return broker.request(request, signal);
  };
}

export const command: CommandSpec = {
  name: "exec",
  summary: "Decide and run a command through the exec policy",
  usage: USAGE,
  run,
};
