// Issue 11 attack class 8 and issue 18's environment leaks, run for real: the approval socket's
// `exec.run`, the backend's `device:execute_command` from the test backend, and `gatehouse exec`.
// Secrets must not appear in what a command prints; a request variable that changes what runs must
// not run without a person (a marker file must not appear); shell strings run under bash whatever
// `$SHELL` is, and the runner's BASH_ENV / ENV are never read.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PromptRequest } from "../../../src/core/policy/types.js";
import { silentLogger } from "../../../src/core/log.js";
import { gateAndRun } from "../../../src/executor/gate.js";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { createSecretStore } from "../../../src/secrets/secret-store.js";
import { keytarKeychain } from "../../../src/secrets/keychain.js";
import { startGatehouse, writePolicy, type RunningGatehouse } from "../approval-server/fixtures.js";
import { startHarness, type Harness } from "../device/harness.js";
import { runCli } from "../../support/cli.js";
import { gateDeps, gateRequest } from "../../support/executor-inputs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { realProgram } from "../../support/programs.js";

const DEVICE_TOKEN = "device-token-5f1c0a9e7b";
const FULL = { security: "full", ask: "off", askFallback: "deny" } as const;
const ALLOWLIST_ONLY = { security: "allowlist", ask: "off", askFallback: "deny" } as const;
const ASK_ME = { security: "allowlist", ask: "on-miss", askFallback: "deny" } as const;
const DASH = "/bin/dash";
const ZSH = ["/usr/bin/zsh", "/bin/zsh"].find((p) => existsSync(p));

let g: RunningGatehouse | null = null;
let h: Harness | null = null;
let t: TempHome | null = null;
afterEach(async () => {
  await g?.stop();
  await h?.close();
  await t?.cleanup();
  g = h = t = null;
});

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

async function writeSettings(home: TempHome, settings: Record<string, unknown>): Promise<void> {
  await fs.mkdir(home.paths.executorHome, { recursive: true, mode: 0o700 });
  await fs.writeFile(home.paths.settings, JSON.stringify({ version: 1, ...settings }), { mode: 0o600 });
}

/** A hook file that creates `marker` when a shell reads it. */
async function hookScript(dir: string, marker: string): Promise<string> {
  const file = path.join(dir, "hook.sh");
  await fs.writeFile(file, `touch ${JSON.stringify(marker)}\n`);
  return file;
}

describe("no secret reaches a command", () => {
  it("exec.run over the real socket: printenv shows no device token, socket token or secret-store value", async () => {
    const home = await makeTempHome("gh-envleak-", { WEGENT_AUTH_TOKEN: `Bearer ${DEVICE_TOKEN}` });
    await writePolicy(home.paths, { defaults: FULL });
    const socketToken = (
      JSON.parse(await fs.readFile(home.paths.approvals, "utf8")) as { socket: { token: string } }
    ).socket.token;
    const storeSecret = `store-secret-${Date.now()}`;
    const store = createSecretStore({
      paths: home.paths,
      logger: silentLogger,
      keychain: keytarKeychain({
        load: () => {
          throw new Error("no keychain on this test machine");
        },
      }),
    });
    await store.set("skills/demo/API_KEY", storeSecret); // what a skill secret lookup registers
    Object.assign(home.env, {
      DEVICE_COPY: `x${DEVICE_TOKEN}x`,
      SOCKET_COPY: socketToken,
      STORE_COPY: storeSecret,
      PLAIN_EXTRA: "configured-and-harmless",
      UNLISTED: "not-configured",
    });
    await writeSettings(home, {
      environment: { inherit: ["DEVICE_COPY", "SOCKET_COPY", "STORE_COPY", "PLAIN_EXTRA"] },
    });
    g = await startGatehouse({ t: home, policy: { defaults: FULL } });

    const result = await (
      await g.client()
    ).request("exec.run", {
      argv: ["printenv"],
      cwd: home.home,
      env: { REQUEST_COPY: socketToken, WEGENT_AUTH_TOKEN: "from-the-request", FINE: "1" },
    });
    expect(result).toMatchObject({ status: "ok", body: { decision: "allow-once", exitCode: 0 } });
    const body = (result as { body: { stdout: string; warnings?: string[] } }).body;
    expect(body.stdout).toContain(`HOME=${home.home}`);
    expect(body.stdout).toContain("PLAIN_EXTRA=configured-and-harmless");
    expect(body.stdout).toContain("FINE=1");
    for (const secret of [DEVICE_TOKEN, socketToken, storeSecret, "from-the-request"])
      expect(body.stdout).not.toContain(secret);
    expect(body.stdout).not.toMatch(/WEGENT_AUTH_TOKEN|UNLISTED/);
    expect(body.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/REQUEST_COPY ignored/),
        expect.stringMatching(/WEGENT_AUTH_TOKEN ignored/),
      ]),
    );
    expect(JSON.stringify(body.warnings)).not.toContain(socketToken);
  });

  it("device:execute_command from the test backend: printenv shows no device token", async () => {
    h = await startHarness({ token: DEVICE_TOKEN, env: { DEVICE_COPY: DEVICE_TOKEN } });
    await writeSettings(h.t, { environment: { inherit: ["DEVICE_COPY"] } });
    await h.device.start();
    await h.waitForState("registered");
    await h.setApprovals({ defaults: FULL });
    const ack = (await h.backend.executeCommand(
      h.deviceId,
      { command: "printenv", env: { ECHOED: DEVICE_TOKEN } },
      20_000,
    )) as { success: boolean; stdout: string };
    expect(ack.success).toBe(true);
    expect(ack.stdout).toContain("HOME=");
    expect(ack.stdout).not.toContain(DEVICE_TOKEN);
    expect(ack.stdout).not.toMatch(/WEGENT_AUTH_TOKEN|DEVICE_COPY|ECHOED/);
  });
});

describe("a request's variables that change what runs need a person", () => {
  const echoFunction = (marker: string) => ({
    "BASH_FUNC_echo%%": `() { touch ${JSON.stringify(marker)}; }`,
  });

  it("an exported function redefining an allowlisted echo does not run without a person (socket exec.run)", async () => {
    g = await startGatehouse({ policy: { defaults: ALLOWLIST_ONLY, allow: [realProgram("echo")] } });
    const marker = path.join(g.t.home, "pwned");
    const client = await g.client();
    // Covered without the variable: the allowlist really covers `echo hi`.
    const plain = await client.request("exec.run", { command: "echo hi", cwd: g.t.home });
    expect(plain).toMatchObject({ status: "ok", body: { decision: "allow-once", stdout: "hi\n" } });

    const attack = await client.request("exec.run", {
      command: "echo hi",
      cwd: g.t.home,
      env: echoFunction(marker),
    });
    expect(attack).toMatchObject({ status: "ok", body: { decision: "deny", reason: "allowlist-miss" } });
    const argv = await client.request("exec.run", {
      argv: ["echo", "hi"],
      cwd: g.t.home,
      env: echoFunction(marker),
    });
    expect(argv).toMatchObject({ status: "ok", body: { decision: "deny" } });
    expect(await exists(marker)).toBe(false);
  });

  it("with ask=on-miss the person is asked, and is told which variable", async () => {
    g = await startGatehouse({ policy: { defaults: ASK_ME, allow: [realProgram("echo")] } });
    const marker = path.join(g.t.home, "pwned");
    const shown: PromptRequest[] = [];
    g.services.broker.attach({
      kind: "test",
      show: (prompt, decide) => {
        shown.push(prompt);
        setImmediate(() => decide({ decision: "deny" })); // as a person would: after the prompt is shown
      },
      withdraw: () => undefined,
    });
    const result = await (
      await g.client()
    ).request("exec.run", { command: "echo hi", cwd: g.t.home, env: echoFunction(marker) });
    expect(result).toMatchObject({ status: "ok", body: { decision: "deny", decidedBy: "user" } });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.explanation.flagDetails).toContainEqual(
      expect.objectContaining({
        kind: "dangerous-assignment",
        detail: expect.stringContaining("the request sets BASH_FUNC_echo%%"),
      }),
    );
    expect(await exists(marker)).toBe(false);
  });

  it("once allowed (security=full) the request's variables do apply: the attack above is real", async () => {
    g = await startGatehouse({ policy: { defaults: FULL } });
    const marker = path.join(g.t.home, "pwned");
    await (
      await g.client()
    ).request("exec.run", { command: "echo hi", cwd: g.t.home, env: echoFunction(marker) });
    expect(await exists(marker)).toBe(true);
  });

  it("device:execute_command with BASH_FUNC_echo%% and echo allowlisted does not run with nobody to ask", async () => {
    h = await startHarness();
    await h.device.start();
    await h.waitForState("registered");
    await h.setApprovals({
      defaults: ALLOWLIST_ONLY,
      agents: { backend: { allowlist: [{ id: "echo", pattern: realProgram("echo") }] } },
    });
    const marker = path.join(h.t.home, "pwned");
    const ack = (await h.backend.executeCommand(
      h.deviceId,
      { command: "echo hi", env: echoFunction(marker) },
      20_000,
    )) as { success: boolean };
    expect(ack.success).toBe(false);
    expect(await exists(marker)).toBe(false);
  });

  it("a request's HOME that points git at another .gitconfig needs a person; git allowlisted, nobody to ask", async () => {
    g = await startGatehouse({ policy: { defaults: ALLOWLIST_ONLY, allow: [realProgram("git")] } });
    const marker = path.join(g.t.home, "pwned");
    const evil = path.join(g.t.home, "evil");
    const repo = path.join(g.t.home, "repo");
    await fs.mkdir(evil);
    await fs.mkdir(repo);
    const config = `[core]\n\tfsmonitor = "touch ${marker}; false"\n`;
    await fs.mkdir(path.join(evil, "git"));
    await fs.writeFile(path.join(evil, ".gitconfig"), config); // read through HOME
    await fs.writeFile(path.join(evil, "git", "config"), config); // read through XDG_CONFIG_HOME
    const client = await g.client();
    const init = await client.request("exec.run", { argv: ["git", "init", "-q", "."], cwd: repo });
    expect(init).toMatchObject({ status: "ok", body: { decision: "allow-once", exitCode: 0 } });
    for (const env of [{ HOME: evil }, { XDG_CONFIG_HOME: evil }]) {
      const result = await client.request("exec.run", { argv: ["git", "status"], cwd: repo, env });
      expect(result).toMatchObject({ status: "ok", body: { decision: "deny" } });
    }
    expect(await exists(marker)).toBe(false);
  });

  it("prepending to PATH needs a person too: a bare-name entry must not follow it to another program", async () => {
    g = await startGatehouse({ policy: { defaults: ALLOWLIST_ONLY, allow: ["echo"] } });
    const bin = path.join(g.t.home, "bin");
    const marker = path.join(g.t.home, "pwned");
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, "echo"), `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`, {
      mode: 0o755,
    });
    const result = await (
      await g.client()
    ).request("exec.run", { argv: ["echo", "hi"], cwd: g.t.home, env: { PATH: `${bin}:${g.t.env.PATH}` } });
    expect(result).toMatchObject({ status: "ok", body: { decision: "deny" } });
    expect(await exists(marker)).toBe(false);
  });
});

describe("shell strings run under the bash the policy analysed them for", () => {
  const cli = (home: TempHome, args: string[], env: Record<string, string> = {}) =>
    runCli(["exec", ...args], { env: { ...home.env, ...env }, cwd: home.home, timeoutMs: 120_000 });

  /** bash makes the marker; dash fails on the array, zsh counts arrays from 1. */
  const bashOnly = (marker: string) =>
    `a=(one two); [[ \${a[0]} == one ]] && touch ${JSON.stringify(marker)}`;

  for (const shell of [DASH, ZSH]) {
    it.skipIf(!shell || !existsSync(shell))(
      `gatehouse exec --shell with SHELL=${shell} runs the string under bash`,
      async () => {
        t = await makeTempHome("gh-shell-");
        await writePolicy(t.paths, { defaults: FULL });
        const marker = path.join(t.home, "bash-ran");
        const result = await cli(t, ["--shell", "--", bashOnly(marker)], { SHELL: shell! });
        expect(result.code).toBe(0);
        expect(await exists(marker)).toBe(true);
      },
    );
  }

  it("an allowlisted echo of $'…' prints what bash prints, with SHELL=/bin/dash and nobody to ask", async () => {
    t = await makeTempHome("gh-shell-");
    await writePolicy(t.paths, { defaults: ALLOWLIST_ONLY, allow: [realProgram("echo")] });
    const result = await cli(t, ["--json", "--shell", "--", "echo $'a\\x41'"], { SHELL: DASH });
    expect(result.json()).toMatchObject({ decision: "allow-once", stdout: "aA\n" });
  });

  it("BASH_ENV and ENV in the runner's environment are not read by the command, its scripts or its shells", async () => {
    t = await makeTempHome("gh-bashenv-");
    await writePolicy(t.paths, { defaults: FULL });
    const marker = path.join(t.home, "startup-file-read");
    const hook = await hookScript(t.home, marker);
    const script = path.join(t.home, "script.sh");
    await fs.writeFile(script, "#!/bin/bash\necho script ran\n", { mode: 0o755 });
    const env = {
      BASH_ENV: hook,
      ENV: hook,
      SHELLOPTS: "xtrace",
      "BASH_FUNC_true%%": `() { touch ${marker}; }`,
    };
    expect((await cli(t, ["--shell", "--", "true"], env)).code).toBe(0);
    expect((await cli(t, ["--", script], env)).stdout).toBe("script ran\n");
    expect((await cli(t, ["--", "bash", "-c", "true"], env)).code).toBe(0);
    if (existsSync(DASH)) await cli(t, ["--", DASH, "-i", "-c", "true"], env);
    expect(await exists(marker)).toBe(false);
  });

  it("a behaviour variable named in settings is refused with the reason, and is still not read", async () => {
    t = await makeTempHome("gh-bashenv-");
    await writePolicy(t.paths, { defaults: FULL });
    await writeSettings(t, { environment: { inherit: ["BASH_ENV"] } });
    const marker = path.join(t.home, "startup-file-read");
    const result = await cli(t, ["--shell", "--", "true"], { BASH_ENV: await hookScript(t.home, marker) });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/environment\.inherit\.0: BASH_ENV changes how bash reads a command/);
    expect(await exists(marker)).toBe(false);
  });

  it("with no bash on the machine a shell string is never covered, and runs under /bin/sh only when allowed", async () => {
    t = await makeTempHome("gh-nobash-");
    const approvals = new ApprovalsStore({
      path: t.paths.approvals,
      defaultSocketPath: t.paths.defaultSocket,
    });
    await writePolicy(t.paths, { defaults: ALLOWLIST_ONLY, allow: [realProgram("echo")] });
    const deps = gateDeps(t, { approvals, bash: null });
    const request = gateRequest(t.home, { command: { command: "echo $0" } });
    const refused = await gateAndRun(request, deps);
    expect(refused).toMatchObject({ decision: "deny", reason: "allowlist-miss", exitCode: null });
    expect(refused.explanation.flagDetails).toContainEqual(
      expect.objectContaining({ detail: expect.stringMatching(/no bash/) }),
    );

    await approvals.setAgentSettings("defaults", FULL);
    const ran = await gateAndRun(request, deps);
    expect(ran).toMatchObject({ decision: "allow-once", stdout: "/bin/sh\n" });
    expect(ran.warnings).toContainEqual(expect.stringMatching(/no bash.*\/bin\/sh/));
  });
});
