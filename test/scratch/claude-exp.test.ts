import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import os from "node:os";
import { it } from "vitest";
import { startScriptedAnthropic, toolResultsOf } from "../support/scripted-anthropic.js";

const CLAUDE = path.resolve("node_modules/.bin/claude");
const calls = JSON.parse(process.env.EXP_CALLS ?? "[]") as Array<{ name: string; input: Record<string, unknown> }>;
const extra = JSON.parse(process.env.EXP_ARGS ?? "[]") as string[];

it("experiment", async () => {
  let i = 0;
  const custom = process.env.EXP_SCRIPT_FILE ? ((await import(process.env.EXP_SCRIPT_FILE)) as { default: Parameters<typeof startScriptedAnthropic>[0] }).default : null;
  const api = await startScriptedAnthropic(custom ?? ((req) => {
    const results = req.messages.filter((m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "tool_result")).length;
    if (i < calls.length && results >= i) return { toolUse: calls[i++]! };
    return { text: "done" };
  }));
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "cl-")));
  const cwd = path.join(home, "work"); await fs.mkdir(cwd);
  const configDir = path.join(home, ".claude"); await fs.mkdir(configDir, { recursive: true });
  if (process.env.EXP_SETUP) await new Promise((r) => spawn("bash", ["-c", process.env.EXP_SETUP!], { cwd, stdio: "inherit", env: { ...process.env, H: home } }).on("close", r));
  const args = ["-p", "--output-format", "stream-json", "--verbose", ...extra.map((a) => a.replaceAll("$CWD", cwd).replaceAll("$H", home))];
  const child = spawn(CLAUDE, args, { cwd, env: { PATH: process.env.PATH!, HOME: home, CLAUDE_CONFIG_DIR: configDir, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "k", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end("go");
  let out = "", err = "";
  child.stdout.on("data", (d) => (out += d)); child.stderr.on("data", (d) => (err += d));
  await new Promise((r) => child.on("close", r));
  console.log("HOME", home);
  console.log("STDOUT\n" + out.split("\n").filter((l) => !l.includes('"subtype":"init"')).join("\n").slice(-6000));
  console.log("INIT " + (out.split("\n").find((l) => l.includes('"subtype":"init"')) ?? "").slice(0, 3000));
  console.log("STDERR\n" + err.slice(-3000));
  const withTools = api.requests.find((r) => Array.isArray(r.tools) && r.tools.length > 0);
  console.log("TOOLS", JSON.stringify((withTools?.tools as Array<{ name: string }> | undefined)?.map((t) => t.name)));
  console.log("RESULTS", JSON.stringify(api.toolResults(), null, 1));
  await api.close();
}, 120_000);
