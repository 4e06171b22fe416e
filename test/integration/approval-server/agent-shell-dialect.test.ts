// The dialect the runtime really runs (issue 27 class 6; docs/decisions.md "The dialect the runtime really
// runs"): the hook reads a Bash call the way the shell its runtime will run it reads it. Real Claude Code
// and real Codex against the scripted model endpoints, the real `gatehouse serve` and the real hook, all
// as uid 65534 in folders that user owns (Codex in a private mount namespace whose /etc/passwd gives that
// user a zsh login shell, so its user database says zsh while SHELL says bash).
//
// The command is `< notes.txt`, from the zsh corpus of test/unit/policy/positive-model.test.ts: bash reads
// a redirect without a command as nothing to run; zsh runs $READNULLCMD (`more`, Debian: `pager`) on it.
// With such a program first on PATH that touches the marker, it is an attack only zsh runs.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexGateArgs } from "../../../src/core/runtime/codex-spec.js";
import { GATEHOUSE_BIN, REPO_ROOT } from "../../support/cli.js";
import { OTHER_UID, otherUserUnavailable } from "../../support/other-user.js";
import { startScriptedAnthropic, toolResultText, toolThenText } from "../../support/scripted-anthropic.js";
import {
  callThenText,
  codexProviderArgs,
  functionOutputsOf,
  startScriptedOpenAi,
} from "../../support/scripted-openai.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { writePolicy, type PolicySetup } from "./fixtures.js";
import { startServe, type ServeProcess } from "./serve-process.js";

const CLAUDE = path.join(REPO_ROOT, "node_modules", ".bin", "claude");
const CODEX = path.join(REPO_ROOT, "node_modules", ".bin", "codex");
/** A zsh to show the attack is real (the suite runs without one where none is installed). */
const ZSH = [process.env.GATEHOUSE_TEST_ZSH, "/usr/bin/zsh", "/bin/zsh"].find((p) => p && existsSync(p));
const BASH = ["/bin/bash", "/usr/bin/bash"].find((p) => existsSync(p))!;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p))!;
const AS_NOBODY = [SETPRIV, `--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "--"];
/** Nothing allowed and nobody asked: a command runs only when the policy reads it as running nothing. */
const ALLOWLIST_ONLY: PolicySetup["defaults"] = { security: "allowlist", ask: "off", askFallback: "deny" };
const ZSH_ONLY = "< notes.txt";

let root: string;
let t: TempHome;
let work: string;
let bin: string;
let marker: string;
let serve: ServeProcess | null = null;

/** Everything below `dir` (and `dir`) belongs to uid 65534 (before anything of that user runs there). */
async function giveToNobody(dir: string): Promise<void> {
  await fs.chown(dir, OTHER_UID, OTHER_UID);
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }))
    await fs.lchown(path.join(entry.parentPath, entry.name), OTHER_UID, OTHER_UID);
}

/** A file or folder made for a run that already started belongs to uid 65534. */
function nobodysOwn(file: string): Promise<void> {
  return fs.lchown(file, OTHER_UID, OTHER_UID);
}

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "gh-dialect-"));
  await fs.chmod(root, 0o755);
  t = await makeTempHome("gh-dialect-home-");
  work = path.join(t.home, "work");
  bin = path.join(t.home, "bin");
  marker = path.join(t.home, "marker");
  await fs.mkdir(work);
  await fs.writeFile(path.join(work, "notes.txt"), "notes\n");
  await fs.mkdir(bin);
  // zsh's $READNULLCMD (`more`, or `pager` as Debian builds it): a pager that leaves the marker instead
  for (const pager of ["more", "pager"])
    await fs.writeFile(path.join(bin, pager), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
});
afterEach(async () => {
  await serve?.stop();
  serve = null;
  await t.cleanup();
  await fs.rm(root, { recursive: true, force: true });
});

/** The environment every process of the run gets (as uid 65534). */
function baseEnv(): Record<string, string> {
  // where there is a zsh, Claude Code finds it on PATH (and so the attack would really run)
  const zshFolder = ZSH ? `:${path.dirname(ZSH)}` : "";
  return {
    HOME: t.home,
    WEGENT_EXECUTOR_HOME: t.paths.executorHome,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin${zshFolder}`,
    LANG: "C.UTF-8",
  };
}

async function startAsNobody(policy = ALLOWLIST_ONLY): Promise<void> {
  await writePolicy(t.paths, { defaults: policy });
  await giveToNobody(t.home);
  serve = await startServe(baseEnv(), [], { prefix: AS_NOBODY });
}

/** Runs `argv` to its end (at most 3 min); its stdout and stderr. */
function runToEnd(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn("timeout", ["180", ...argv], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

function auditDecisions(): Promise<{ command: string; decision: string; reason: string }[]> {
  return fs
    .readFile(t.paths.audit, "utf8")
    .then((text) =>
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as never),
    )
    .catch(() => []);
}

describe.skipIf(otherUserUnavailable !== null)("the shell a runtime really runs", () => {
  it.skipIf(!ZSH)(
    "the attack is real: zsh runs $READNULLCMD for a redirect alone, bash runs nothing",
    async () => {
      await giveToNobody(t.home);
      const env = baseEnv();
      await runToEnd([...AS_NOBODY, BASH, "-c", ZSH_ONLY], env, work);
      expect(existsSync(marker)).toBe(false);
      await runToEnd([...AS_NOBODY, ZSH!, "-c", ZSH_ONLY], env, work);
      expect(existsSync(marker)).toBe(true);
    },
  );

  /** One Claude Code turn asking for one Bash call, with the hook; the tool result the model got back. */
  async function claudeTurn(shellEnv: Record<string, string>) {
    const api = await startScriptedAnthropic(
      toolThenText({ name: "Bash", input: { command: ZSH_ONLY, description: "Read the notes" } }, "Done."),
    );
    try {
      const settings = path.join(t.home, "settings.json");
      const hook = `"${process.execPath}" "${GATEHOUSE_BIN}" hook claude --workdir "${work}" --timeout 20`;
      await fs.writeFile(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook, timeout: 60 }] }],
          },
        }),
      );
      await nobodysOwn(settings);
      const env = {
        ...baseEnv(),
        ...shellEnv,
        CLAUDE_CONFIG_DIR: path.join(t.home, ".claude"),
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: "x",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      };
      const args = [
        "-p",
        "Read the notes.",
        "--output-format",
        "stream-json",
        "--verbose",
        "--settings",
        settings,
      ];
      const run = await runToEnd([...AS_NOBODY, CLAUDE, ...args, "--allowedTools", "Bash"], env, work);
      const [result] = api.toolResults();
      expect(result, run.err).toBeDefined();
      return { error: result!.is_error === true, text: toolResultText(result!) };
    } finally {
      await api.close();
    }
  }

  it("Claude Code with a SHELL that names neither bash nor zsh: the call is read as zsh and refused", async () => {
    await startAsNobody();
    const refused = await claudeTurn({ SHELL: "/usr/bin/fish" });
    expect(refused.error).toBe(true);
    expect(refused.text).toContain("Gatehouse denied this command (by policy): allowlist-miss");
    expect(existsSync(marker)).toBe(false);
    expect((await auditDecisions()).map((l) => [l.command, l.decision])).toEqual([[ZSH_ONLY, "deny"]]);
    // the same call where Claude Code runs bash (SHELL names it) runs nothing and is allowed
    const allowed = await claudeTurn({ SHELL: BASH });
    expect(allowed.error, allowed.text).toBe(false);
    expect(existsSync(marker)).toBe(false);
  }, 240_000);

  it.skipIf(!ZSH)(
    "without the gate's zsh reading, Claude Code's zsh would have run the attack (security=full)",
    async () => {
      await startAsNobody({ security: "full", ask: "off", askFallback: "deny" });
      await claudeTurn({ SHELL: "/usr/bin/fish" });
      expect(existsSync(marker)).toBe(true);
    },
    240_000,
  );

  /**
   * One Codex turn asking for one exec_command, with the hook (codex-spec's gate arguments), as uid 65534
   * in a mount namespace whose /etc/passwd gives that user `loginShell`.
   */
  async function codexTurn(loginShell: string) {
    const api = await startScriptedOpenAi(
      callThenText({ name: "exec_command", arguments: { cmd: ZSH_ONLY, workdir: work } }, "Done."),
    );
    try {
      const passwd = path.join(root, "passwd");
      const users = await fs.readFile("/etc/passwd", "utf8");
      const nobody = `nobody:x:${OTHER_UID}:${OTHER_UID}:nobody:${t.home}:${loginShell}`;
      await fs.writeFile(passwd, `${users.replace(/^nobody:.*\n?/m, "")}${nobody}\n`, { mode: 0o644 });
      const codexHome = path.join(t.home, ".codex");
      await fs.mkdir(codexHome, { recursive: true });
      await nobodysOwn(codexHome);
      const gate = codexGateArgs({
        gatehouseCommand: [process.execPath, GATEHOUSE_BIN],
        workdir: work,
        promptTimeoutMs: 20_000,
      });
      const args = [
        "exec",
        "--json",
        "--skip-git-repo-check",
        ...gate,
        ...codexProviderArgs(api.baseUrl),
        "--",
        "go",
      ];
      const quoted = [...AS_NOBODY, CODEX, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
      const env = { ...baseEnv(), SHELL: BASH, CODEX_HOME: codexHome, FAKE_KEY: "scripted-key" };
      const run = await runToEnd(
        [
          "unshare",
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          `mount --bind '${passwd}' /etc/passwd && exec ${quoted}`,
        ],
        env,
        work,
      );
      const outputs = api.requests.flatMap(functionOutputsOf).map((o) => String(o.output));
      expect(outputs, run.err.slice(-2000)).toHaveLength(1);
      return outputs[0]!;
    } finally {
      await api.close();
    }
  }

  it("Codex whose user's login shell is zsh while SHELL says bash: the call is read as zsh and refused", async () => {
    await startAsNobody();
    // a zsh where there is one (the attack then really runs without the gate), else the name is enough
    const refused = await codexTurn(ZSH ?? "/usr/bin/zsh");
    expect(refused).toContain("Gatehouse denied this command (by policy): allowlist-miss");
    expect(existsSync(marker)).toBe(false);
    expect((await auditDecisions()).map((l) => [l.command, l.decision])).toEqual([[ZSH_ONLY, "deny"]]);
    // the same user with a login shell Codex does not know runs bash, whatever SHELL says: allowed
    const allowed = await codexTurn("/usr/sbin/nologin");
    expect(allowed).not.toContain("denied");
    expect(existsSync(marker)).toBe(false);
  }, 240_000);

  it.skipIf(!ZSH)(
    "without the gate's zsh reading, Codex's zsh would have run the attack (security=full)",
    async () => {
      await startAsNobody({ security: "full", ask: "off", askFallback: "deny" });
      await codexTurn(ZSH!);
      expect(existsSync(marker)).toBe(true);
    },
    240_000,
  );
});
