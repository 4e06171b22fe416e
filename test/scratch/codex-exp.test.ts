import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import os from "node:os";
import { it } from "vitest";
import { codexProviderArgs, startScriptedOpenAi, functionOutputsOf } from "../support/scripted-openai.js";

const CODEX = path.resolve("node_modules/.bin/codex");
const calls = JSON.parse(process.env.EXP_CALLS ?? "[]") as Array<{ name: string; arguments: Record<string, unknown> }>;
const extra = JSON.parse(process.env.EXP_ARGS ?? "[]") as string[];

it("experiment", async () => {
  let i = 0;
  const custom = process.env.EXP_SCRIPT_FILE ? ((await import(process.env.EXP_SCRIPT_FILE)) as { default: Parameters<typeof startScriptedOpenAi>[0] }).default : null;
  const api = await startScriptedOpenAi(custom ?? ((req) => {
    const outs = functionOutputsOf(req);
    if (i < calls.length && outs.length >= i) {
      const c = calls[i++]!;
      const last = JSON.stringify(outs.at(-1)?.output ?? "");
      const sid = /session ID (\d+)/i.exec(last)?.[1] ?? "0";
      return { functionCall: JSON.parse(JSON.stringify(c).replace('"$SESSION"', sid)) };
    }
    return { text: "done" };
  }));
  const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "cx-")));
  const cwd = path.join(home, "work"); await fs.mkdir(cwd);
  if (process.env.EXP_SETUP) await new Promise((r) => spawn("bash", ["-c", process.env.EXP_SETUP!], { cwd, stdio: "inherit", env: { ...process.env, H: home } }).on("close", r));
  const codexHome = path.join(home, ".codex"); await fs.mkdir(codexHome, { recursive: true });
  const args = ["exec", "--json", "--skip-git-repo-check", ...codexProviderArgs(api.baseUrl), ...extra.map((a) => a.replaceAll("$CWD", cwd)), "--", "go"];
  const child = spawn(CODEX, args, { cwd, env: { PATH: process.env.PATH!, HOME: home, CODEX_HOME: codexHome, FAKE_KEY: "k", SECRET_X: "sekrit", ...(process.env.EXP_SHELL ? { SHELL: process.env.EXP_SHELL } : {}) }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "", err = "";
  child.stdout.on("data", (d) => (out += d)); child.stderr.on("data", (d) => (err += d));
  await new Promise((r) => child.on("close", r));
  console.log("HOME", home);
  console.log("STDOUT\n" + out);
  console.log("STDERR\n" + err.slice(-3000));
  console.log("TOOLS", JSON.stringify(api.requests[0]?.tools?.map((t) => t.name ?? t.type)));
  console.log("OUTPUTS", JSON.stringify(api.functionOutputs(), null, 1));
  await fs.writeFile("/tmp/exp/last-tools.json", JSON.stringify(api.requests[0]?.tools, null, 1));
  await api.close();
}, 120_000);
