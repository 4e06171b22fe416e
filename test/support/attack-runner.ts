// Runs the attack corpus (test/fixtures/policy/attack-corpus.ts) as the unprivileged user the attack test
// starts it as (uid 65534, test/integration/policy-cli/attack-classes.test.ts): every attack through the
// real gate — policy, then the executor spawning bash — with only its programs allowlisted, then every
// attack unguarded by the shell it targets, to prove it is real. Everything it creates lies in the one
// folder it is given, which is also its HOME: Gatehouse's folder E with the socket token, a key in
// ~/.ssh, AWS keys in ~/.aws, the helper scripts and the working folder. Prints one JSON object: per
// attack, whether the marker appeared or a secret was printed, gated and unguarded.
// Usage (as the other user): node dist/test/support/attack-runner.js <folder>
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ApprovalsStore, type PolicySettings } from "../../src/core/approvals/index.js";
import { silentLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { ownFilesOf } from "../../src/core/policy/own-files.js";
import { AuditLog } from "../../src/executor/audit-log.js";
import { gateAndRun } from "../../src/executor/gate.js";
import { ATTACKS, type Attack } from "../fixtures/policy/attack-corpus.js";

export const SHELLS = {
  bash: ["/bin/bash", "/usr/bin/bash"].find((p) => existsSync(p)),
  dash: ["/bin/dash", "/usr/bin/dash"].find((p) => existsSync(p)),
  zsh: ["/usr/bin/zsh", "/bin/zsh"].find((p) => existsSync(p)),
};
const LOCKED: PolicySettings = { security: "allowlist", ask: "off", askFallback: "deny" };
const FULL: PolicySettings = { security: "full", ask: "off", askFallback: "deny" };

/** What one run of an attack did: the marker appeared or a secret was printed (`hit`), and how it was decided. */
export interface RunOutcome {
  shell: string;
  hit: boolean;
  decision?: string;
  reason?: string;
  output?: string;
}

export interface AttackResult {
  index: number;
  /** Why it was not run here (a program it needs is not installed), or absent. */
  skipped?: string;
  /** Through the gate with only its programs allowlisted (security=allowlist, ask=off): must not hit. */
  gated: RunOutcome[];
  /** Through the gate under security=full: a read of Gatehouse's own folder must not hit even so. */
  full?: RunOutcome;
  /** Unguarded, by the shell it targets: must hit (the attack is real). */
  real?: RunOutcome;
}

interface Fixture {
  root: string;
  dir: string;
  work: string;
  marker: string;
  env: Record<string, string>;
  secrets: Record<NonNullable<Attack["secret"]>, string>;
}

function which(name: string, env: Record<string, string>): string | null {
  for (const folder of (env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(folder, name);
    try {
      execFileSync("test", ["-x", candidate]);
      return candidate;
    } catch {
      // next folder
    }
  }
  return null;
}

async function setUp(root: string): Promise<Fixture> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: root, LANG: "C.UTF-8" };
  const paths = resolvePaths(env);
  const dir = path.join(root, "fx");
  const work = path.join(dir, "work");
  const marker = path.join(dir, "MARK");
  const touchScript = `#!/bin/sh\nPATH=/usr/bin:/bin touch ${marker}\n`;
  for (const folder of ["work", "other", "evil", "evilhome"])
    await fs.mkdir(path.join(dir, folder), { recursive: true });
  await fs.writeFile(path.join(dir, "p.sh"), touchScript, { mode: 0o755 });
  await fs.writeFile(path.join(dir, "p.js"), `require("child_process").execSync("touch ${marker}");\n`);
  await fs.writeFile(path.join(dir, "evil", "ls"), touchScript, { mode: 0o755 });
  await fs.writeFile(path.join(dir, "evil", "git-x"), touchScript, { mode: 0o755 });
  await fs.writeFile(path.join(work, "tool"), "#!/bin/sh\necho harmless\n", { mode: 0o755 });
  await fs.writeFile(path.join(dir, "other", "tool"), touchScript, { mode: 0o755 });
  await fs.writeFile(path.join(dir, "evilhome", ".gitconfig"), `[alias]\n\tx = !touch ${marker}\n`);
  // Gatehouse's own folder with its approvals file (the socket token), a key and AWS keys
  const store = new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
  await store.ensure();
  const loaded = await store.load();
  if (loaded.status !== "ok") throw new Error("the approvals file was not written");
  const secrets = {
    token: loaded.file.socket.token,
    "ssh-key": `-----BEGIN OPENSSH PRIVATE KEY----- ${randomBytes(12).toString("hex")}`,
    aws: `aws_secret_access_key = ${randomBytes(12).toString("hex")}`,
    // the harness starts this process with it in its environment (/proc/PID/environ attacks)
    env: process.env.GATEHOUSE_ATTACK_SECRET ?? `missing-${randomBytes(8).toString("hex")}`,
  };
  await fs.mkdir(path.join(root, ".ssh"), { mode: 0o700 });
  await fs.writeFile(path.join(root, ".ssh", "id_rsa"), `${secrets["ssh-key"]}\n`, { mode: 0o600 });
  await fs.mkdir(path.join(root, ".aws"), { mode: 0o700 });
  await fs.writeFile(path.join(root, ".aws", "credentials"), `[default]\n${secrets.aws}\n`, { mode: 0o600 });
  // links a task folder might hold (a checkout can bring them)
  await fs.symlink(paths.approvals, path.join(work, "notes.txt"));
  await fs.symlink(paths.executorHome, path.join(work, "settings"));
  // a repository with one commit (file `a` holds the word "initial")
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: work, env: { ...env, GIT_CONFIG_NOSYSTEM: "1" }, stdio: "ignore" });
  git("init", "-q");
  git(
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "initial",
  );
  await fs.writeFile(path.join(work, "a"), "initial\n");
  git("add", "a");
  return { root, dir, work, marker, env, secrets };
}

function fill(text: string, fx: Fixture): string {
  return text
    .replaceAll("{M}", fx.marker)
    .replaceAll("{D}", fx.dir)
    .replaceAll("{H}", fx.root)
    .replaceAll("{E}", resolvePaths(fx.env).executorHome)
    .replaceAll("{PATH}", fx.env.PATH ?? "");
}

const filled = (vars: Record<string, string> | undefined, fx: Fixture): Record<string, string> =>
  Object.fromEntries(Object.entries(vars ?? {}).map(([k, v]) => [k, fill(v, fx)]));

/** Every program the attack allows exists here, or the first one that does not. */
function missing(attack: Attack, fx: Fixture): string | null {
  for (const name of attack.allow) {
    if (name.startsWith("./")) continue;
    if (!which(name, fx.env)) return name;
  }
  return null;
}

/** Whether the attack did what it tries: the marker appeared, or the secret it reads was printed. */
function hit(attack: Attack, fx: Fixture, output: string): boolean {
  if (attack.secret) return output.includes(fx.secrets[attack.secret]);
  return existsSync(fx.marker);
}

let n = 0;

async function throughGate(attack: Attack, fx: Fixture, settings: PolicySettings, shell: string) {
  const home = path.join(fx.root, "stores", `e${++n}`);
  const store = new ApprovalsStore({
    path: path.join(home, "exec-approvals.json"),
    defaultSocketPath: path.join(home, "s.sock"),
  });
  await store.ensure();
  await store.setAgentSettings("defaults", settings);
  for (const name of attack.allow) {
    const found = name.startsWith("./") ? path.join(fx.work, name.slice(2)) : (which(name, fx.env) as string);
    await store.addEntry("local", { pattern: await fs.realpath(found) });
  }
  const env = filled(attack.env, fx);
  // variables of the environment commands inherit (as an agent's has WEGENT_EXECUTOR_HOME)
  const baseEnv = { ...fx.env, SHELL: shell, ...filled(attack.baseEnv, fx) };
  const result = await gateAndRun(
    {
      command: { command: fill(attack.command, fx), shell: "posix" },
      agentId: "local",
      sessionKey: "local",
      source: "attack",
      cwd: fx.work,
      env,
      timeoutMs: 20_000,
    },
    {
      approvals: store,
      audit: new AuditLog({ path: path.join(home, "audit.jsonl") }),
      prompt: null,
      baseEnv,
      inheritSettings: async () => ({ inherit: Object.keys(attack.baseEnv ?? {}) }),
      ownFiles: ownFilesOf(resolvePaths(fx.env)),
      home: fx.root,
      now: Date.now,
      logger: silentLogger,
    },
  );
  const output = `${result.stdout}${result.stderr}`;
  return {
    hit: hit(attack, fx, output),
    decision: result.decision,
    reason: result.reason,
    output: output.slice(0, 400),
  };
}

function unguarded(attack: Attack, fx: Fixture, shell: string): boolean {
  const run = spawnSync(shell, ["-c", fill(attack.command, fx)], {
    cwd: fx.work,
    env: { ...fx.env, ...filled(attack.baseEnv, fx), ...filled(attack.env, fx), GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
    timeout: 20_000,
    // not a pipe: bash takes a socket on standard input for a remote shell and then skips BASH_ENV
    stdio: ["ignore", "pipe", "pipe"],
  });
  return hit(attack, fx, `${run.stdout}${run.stderr}`);
}

async function main(): Promise<void> {
  const root = process.argv[2];
  if (!root || !path.isAbsolute(root)) throw new Error("usage: attack-runner <absolute folder>");
  const fx = await setUp(root);
  const results: AttackResult[] = [];
  // gated first: what an unguarded run leaves behind (a copied key) never helps a gated one
  for (const [index, attack] of ATTACKS.entries()) {
    const absent = missing(attack, fx);
    if (absent) {
      results.push({ index, skipped: `${absent} is not installed here`, gated: [] });
      continue;
    }
    const firstOfClass = ATTACKS.findIndex((a) => a.cls === attack.cls) === index;
    // the executor runs every string under bash whatever $SHELL says: every attack is run with
    // SHELL=bash, and the dash and zsh ones (plus the first of each class) with those as $SHELL too
    const shells = attack.realUnder || firstOfClass ? Object.entries(SHELLS) : [["bash", SHELLS.bash]];
    const gated: RunOutcome[] = [];
    for (const [name, shell] of shells) {
      if (!shell) continue;
      await fs.rm(fx.marker, { force: true });
      gated.push({ shell: name as string, ...(await throughGate(attack, fx, LOCKED, shell)) });
    }
    const result: AttackResult = { index, gated };
    if (attack.secret === "token" && !attack.knownWhenItRuns) {
      await fs.rm(fx.marker, { force: true });
      result.full = { shell: "bash", ...(await throughGate(attack, fx, FULL, SHELLS.bash as string)) };
    }
    results.push(result);
  }
  for (const result of results) {
    const attack = ATTACKS[result.index] as Attack;
    if (result.skipped) continue;
    const target = attack.realUnder ?? "bash";
    const shell = SHELLS[target];
    if (!shell) {
      result.real = { shell: target, hit: false, reason: `no ${target} here` };
      continue;
    }
    await fs.rm(fx.marker, { force: true });
    result.real = { shell: target, hit: unguarded(attack, fx, shell) };
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
