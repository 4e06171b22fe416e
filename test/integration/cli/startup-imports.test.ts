// What each hot CLI path loads (issue 12, docs/decisions.md "Start-up"): the Claude Code hook runs on
// every Bash tool call, so it must not pay for the runner's services, the backend connection
// (Socket.IO), archives, YAML or file watching — and, with Gatehouse running, not even for the policy
// engine, which the server applies. A list of forbidden modules, checked on the real `gatehouse` (the
// bundle in dist/cli/ when it is built, mapped back to source modules through its modules.json), and
// the V8 flags it ends with (any flag set makes Node compile its own modules without their code cache).
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { GATEHOUSE_BIN, REPO_ROOT } from "../../support/cli.js";
import { realProgram } from "../../support/programs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { startServe, type ServeProcess } from "../approval-server/serve-process.js";
import { execFileSync, spawn } from "node:child_process";

const TRACER = path.join(REPO_ROOT, "dist/test/support/module-trace.js");
const BUNDLE_MAP = path.join(REPO_ROOT, "dist/cli/modules.json");

/** Never on a CLI hot path: the runner, the device side, and the libraries only they use. */
const NEVER = [
  "src/services.js",
  "src/device/",
  "src/core/capabilities/",
  "src/core/skills/",
  "src/executor/tasks/",
  "node_modules/socket.io-client/",
  "node_modules/engine.io-client/",
  "node_modules/ws/",
  "node_modules/chokidar/",
  "node_modules/tar/",
  "node_modules/yauzl/",
  "node_modules/yaml/",
];
/**
 * With Gatehouse running the hook only asks it: no policy engine, no parsers, no spawning, no approvals
 * store (it reads only the socket section), zod/mini only (classic zod costs several times more to load),
 * and none of Node's file promise API.
 */
const NOT_WHEN_SERVED = [
  "src/core/policy/",
  "src/core/approvals/",
  "node_modules/zod/v4/classic/",
  "node_modules/picomatch/",
  "src/executor/gate.js",
  "src/executor/run-process.js",
  "node_modules/web-tree-sitter/",
  "node_modules/sh-syntax/",
  // its files are read with blocking calls (src/cli/stdin.ts, readJsonFileSync, Codex's transcript):
  // no promise API, no thread pool (node:internal/fs/promises is not listed: the tracer's own ES module
  // loader loads it)
  "node:fs/promises",
  // the request bodies are the server's to check; of settings.json the hook reads only its hook section
  // (core/settings-hook.ts): each was a third of the zod schemas the hook built at start-up
  "src/approval-server/request-bodies.js",
  "src/core/settings.js",
  "src/core/env-rules.js",
];

/** V8's tag for its build and a set of flags (v8.cachedDataVersionTag) in a fresh Node with `flags`. */
function v8TagWith(flags: string[]): string {
  return execFileSync(process.execPath, [...flags, "-p", "require('node:v8').cachedDataVersionTag()"], {
    env: t.env,
    encoding: "utf8",
  }).trim();
}

let t: TempHome;
let bundleMap: Record<string, string[]> | null = null;

beforeAll(async () => {
  t = await makeTempHome("gh-startup-");
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.applyPreset("ask");
  await store.addEntry("*", { pattern: realProgram("git") });
  bundleMap = JSON.parse(await fs.readFile(BUNDLE_MAP, "utf8").catch(() => "null")) as typeof bundleMap;
});
afterAll(async () => t?.cleanup());

/**
 * Runs `gatehouse ARGS` under the tracer; returns its stdout, the source modules it loaded and V8's tag
 * of the flags it ended with.
 */
async function traced(
  args: string[],
  input = "",
): Promise<{ stdout: string; modules: string[]; v8Tag: string | undefined }> {
  const trace = path.join(t.home, `trace-${Date.now()}-${Math.random()}.txt`);
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TRACER, GATEHOUSE_BIN, ...args], {
      env: { ...t.env, GATEHOUSE_MODULE_TRACE: trace },
      cwd: t.home,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
    child.stdin.end(input);
  });
  const lines = (await fs.readFile(trace, "utf8")).split("\n").filter(Boolean);
  const v8Tag = lines.find((line) => line.startsWith("v8-tag:"))?.slice("v8-tag:".length);
  const urls = lines.filter((line) => !line.startsWith("v8-tag:"));
  const modules = new Set<string>();
  for (const url of urls) {
    const file = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
    const chunk = path.relative(path.join(REPO_ROOT, "dist/cli"), file);
    const inBundle = bundleMap && !chunk.startsWith("..") ? bundleMap[chunk] : undefined;
    for (const id of inBundle ?? [file]) modules.add(id.replace(/^(\.\.\/)+/, "/"));
  }
  return { stdout, modules: [...modules], v8Tag };
}

const hookInput = (command: string) =>
  JSON.stringify({
    session_id: "s1",
    cwd: "/tmp",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
  });

function loadedOf(modules: string[], forbidden: string[]): string[] {
  return modules.filter((m) => forbidden.some((f) => m.includes(f)));
}

describe("start-up imports of the hot CLI paths", () => {
  it("the hook asking a running Gatehouse loads neither the runner, the backend libraries nor the policy engine", async () => {
    let serve: ServeProcess | null = null;
    try {
      serve = await startServe(t.env);
      const { stdout, modules, v8Tag } = await traced(["hook", "claude"], hookInput("git status"));
      expect(JSON.parse(stdout).hookSpecificOutput.permissionDecision).toBe("allow");
      expect(stdout).not.toContain("not running");
      expect(modules.some((m) => m.includes("src/cli/commands/hook.js"))).toBe(true);
      expect(loadedOf(modules, [...NEVER, ...NOT_WHEN_SERVED])).toEqual([]);
      // no V8 flag set: Node's own modules (net, crypto, streams) load from their code cache
      expect(v8Tag).toBe(v8TagWith([]));
    } finally {
      await serve?.stop();
    }
  });

  it("the Codex hook asking a running Gatehouse about a command loads nothing of the policy engine, on V8's default flags", async () => {
    let serve: ServeProcess | null = null;
    try {
      serve = await startServe(t.env);
      // Codex's hook input names the call; its arguments are in the session's transcript (codex-cli 0.171)
      const transcript = path.join(t.home, "rollout.jsonl");
      const call = { type: "function_call", name: "exec_command", call_id: "call_1" };
      const args = JSON.stringify({ cmd: "git status" });
      await fs.writeFile(
        transcript,
        `${JSON.stringify({ type: "response_item", payload: { ...call, arguments: args } })}\n`,
      );
      const input = JSON.stringify({
        session_id: "s1",
        cwd: t.home,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "git status" },
        tool_use_id: "call_1",
        transcript_path: transcript,
      });
      const { modules, v8Tag } = await traced(["hook", "codex"], input);
      expect(modules.some((m) => m.includes("src/cli/hook/codex.js"))).toBe(true);
      expect(loadedOf(modules, [...NEVER, ...NOT_WHEN_SERVED])).toEqual([]);
      expect(v8Tag).toBe(v8TagWith([]));
    } finally {
      await serve?.stop();
    }
  });

  it("the Codex hook reading a patch loads the apply_patch grammar and nothing else of the policy engine", async () => {
    let serve: ServeProcess | null = null;
    try {
      serve = await startServe(t.env);
      const folder = path.join(t.home, "project");
      await fs.mkdir(folder, { recursive: true });
      const patch = "*** Begin Patch\n*** Add File: notes.txt\n+x\n*** End Patch\n";
      const input = JSON.stringify({
        session_id: "s1",
        cwd: folder,
        tool_name: "apply_patch",
        tool_input: { command: patch },
      });
      const { modules } = await traced(["hook", "codex", "--workdir", folder], input);
      expect(loadedOf(modules, ["src/core/policy/"]).map((m) => m.replace(/^.*src\//, "src/"))).toEqual([
        "src/core/policy/apply-patch-grammar.js",
      ]);
      expect(
        loadedOf(modules, [...NEVER, ...NOT_WHEN_SERVED.filter((m) => m !== "src/core/policy/")]),
      ).toEqual([]);
    } finally {
      await serve?.stop();
    }
  });

  it("the hook deciding alone (no Gatehouse running) loads the policy engine but nothing of the runner", async () => {
    const { stdout, modules, v8Tag } = await traced(["hook", "claude"], hookInput("git status"));
    expect(stdout).toContain("not running");
    expect(modules.some((m) => m.includes("src/core/policy/"))).toBe(true);
    expect(loadedOf(modules, NEVER)).toEqual([]);
    // it parses: the parsers' WebAssembly on V8's baseline compiler only, as in every other command
    expect(v8Tag).toBe(v8TagWith(["--liftoff-only"]));
  });

  it("policy explain loads nothing of the runner", async () => {
    const { stdout, modules, v8Tag } = await traced(["policy", "explain", "--json", "--", "git", "status"]);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: "run" });
    expect(loadedOf(modules, NEVER)).toEqual([]);
    expect(v8Tag).toBe(v8TagWith(["--liftoff-only"]));
  });

  it("the tracer sees what a command really loads (serve pulls in the runner)", async () => {
    const { modules } = await traced(["serve", "--help"]);
    expect(loadedOf(modules, ["src/services.js"])).not.toEqual([]);
  });
});
