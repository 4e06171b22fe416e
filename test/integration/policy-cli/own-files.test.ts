// Gatehouse's own folder holds the socket token and the policy: an allowlisted `cat` run through the real
// `gatehouse exec --shell` must not print them (the command needs a person; with nobody to ask it does
// not run), while the same `cat` of an ordinary file runs.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { runCli } from "../../support/cli.js";
import { realProgram } from "../../support/programs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

let t: TempHome;
let token: string;
beforeAll(async () => {
  t = await makeTempHome("gatehouse-own-files-");
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "allowlist", ask: "off", askFallback: "deny" });
  await store.addEntry("*", { pattern: await realProgram("cat") });
  const loaded = await store.load();
  if (loaded.status !== "ok") throw new Error("approvals not written");
  token = loaded.file.socket.token;
  await fs.writeFile(path.join(t.home, "notes.txt"), "hello\n");
});
afterAll(async () => t?.cleanup());

const exec = (command: string) =>
  runCli(["exec", "--json", "--shell", "--", command], { env: t.env, cwd: t.home, timeoutMs: 60_000 });

describe("an agent's allowlisted cat cannot read Gatehouse's own files", () => {
  it.each([
    "cat ~/.wegent-executor/exec-approvals.json",
    'cat "$HOME/.wegent-executor/exec-approvals.json"',
    "cd ~ && cat .wegent-executor/exec-approvals.json",
  ])("%s does not run, and the token is printed nowhere", async (command) => {
    const result = await exec(command);
    expect(result.code).toBe(126);
    expect(result.stdout + result.stderr).not.toContain(token);
    expect(result.json<{ reason: string; decision: string }>().decision).not.toBe("allow-once");
  });

  it("an ordinary file is read", async () => {
    const result = await exec(`cat ${path.join(t.home, "notes.txt")}`);
    expect(result.code).toBe(0);
    expect(result.json<{ stdout: string }>().stdout).toBe("hello\n");
  });
});
