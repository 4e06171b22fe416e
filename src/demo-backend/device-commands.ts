// How Wegent's backend sends `device:execute_command` (backend/app/services/device/command_service.py)
// and reads the ack (command_post_processor.py), for the commands the web UI's file browser uses. The
// payload carries the configured command, `cwd` = the requested path, `args`, an `argv` made of both,
// `env` with `WEGENT_WORKSPACE_ROOTS` (api/endpoints/devices.py), the clamped limits and `command_key`.
// Wegent's executor answers `workspace_*` keys natively and never runs the script; neither does a device
// under test, so the script here is a stand-in of the same form.

export const SOCKET_ACK_GRACE_SECONDS = 5;

/** The backend's own stand-in for its python scripts (`python3 -c <script>`). */
const WORKSPACE_SCRIPTS: Record<string, string> = {
  workspace_tree: "import json; print(json.dumps({'path': '.', 'entries': []}))",
  workspace_read_text_file: "import sys; print(open(sys.argv[1]).read())",
  workspace_read_file_chunk: "import sys; print(sys.argv[1], sys.argv[2])",
  workspace_write_text_file: "import sys; open(sys.argv[1], 'w').write(sys.stdin.read())",
};

export interface WorkspaceCommandOptions {
  path: string;
  args?: string[];
  /** The backend's `WEGENT_WORKSPACE_ROOTS`, joined with `:` (os.pathsep); absent = none sent. */
  roots?: string[];
  env?: Record<string, string>;
  timeoutSeconds?: number;
  maxOutputBytes?: number;
  /** A write's new content (Wegent's app path; its socket path sends no write). */
  stdin?: string;
}

function clamp(value: number | undefined, fallback: number, upper: number): number {
  const parsed = Math.trunc(Number(value));
  if (!Number.isFinite(parsed) || parsed <= 0) return fallback;
  return Math.min(parsed, upper);
}

/** The `device:execute_command` payload for a workspace command key, as command_service builds it. */
export function workspaceCommandPayload(
  commandKey: string,
  options: WorkspaceCommandOptions,
): Record<string, unknown> {
  const script = WORKSPACE_SCRIPTS[commandKey] ?? "pass";
  const args = options.args ?? [];
  const env: Record<string, string> = { ...options.env };
  delete env.WEGENT_WORKSPACE_ROOTS;
  if (options.roots && options.roots.length > 0) env.WEGENT_WORKSPACE_ROOTS = options.roots.join(":");
  const payload: Record<string, unknown> = {
    command: `python3 -c '${script}'`,
    cwd: options.path,
    args,
    argv: ["python3", "-c", script, ...args],
    env,
    timeout_seconds: clamp(options.timeoutSeconds, 60, 600),
    max_output_bytes: clamp(options.maxOutputBytes, 1024 * 1024, 5 * 1024 * 1024),
    command_key: commandKey,
  };
  if (options.stdin !== undefined) payload.stdin = options.stdin;
  return payload;
}

/** The backend's `json` post-processor: a string stdout is parsed, an object passes as it is. */
export function jsonPostProcessor(result: Record<string, unknown>): Record<string, unknown> {
  const out = { ...result };
  if (out.stdout_truncated) {
    out.success = false;
    out.error =
      "Command output exceeded max_output_bytes and was truncated; JSON is incomplete and cannot be parsed";
    return out;
  }
  const stdout = out.stdout ?? "";
  if (typeof stdout === "object") return out;
  try {
    out.stdout = JSON.parse(String(stdout));
  } catch (error) {
    if (!out.success) return out;
    out.success = false;
    out.error = `Failed to parse command JSON output: ${(error as Error).message}`;
    return out;
  }
  if (!out.success && typeof out.stdout === "object" && out.stdout !== null) {
    const message = (out.stdout as { error?: unknown }).error;
    if (typeof message === "string" && message.trim() && !out.error) out.error = message;
  }
  return out;
}
