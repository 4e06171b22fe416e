// Issue "Close the gate": every attack of the corpus (test/fixtures/policy/attack-corpus.ts), run for real
// through the gate — policy, then the executor spawning bash — with `security=allowlist ask=off
// askFallback=deny` and only the programs the attack names on the allowlist. The marker file must not
// appear, whatever `$SHELL` the runner has (bash, dash, zsh). Under `security=full` the same command does
// create the marker (run by the shell the attack targets), which proves every instance is a real attack
// and not a typo the gate never had to stop.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsStore, type PolicySettings } from "../../../src/core/approvals/index.js";
import { AuditLog } from "../../../src/executor/audit-log.js";
import { gateAndRun } from "../../../src/executor/gate.js";
import { ATTACKS, type Attack } from "../../fixtures/policy/attack-corpus.js";
import { gateDeps, gateRequest } from "../../support/executor-inputs.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";

const SHELLS = {
  bash: ["/bin/bash", "/usr/bin/bash"].find((p) => existsSync(p)),
  dash: ["/bin/dash", "/usr/bin/dash"].find((p) => existsSync(p)),
  zsh: ["/usr/bin/zsh", "/bin/zsh"].find((p) => existsSync(p)),
};
const LOCKED: PolicySettings = { security: "allowlist", ask: "off", askFallback: "deny" };

let t: TempHome;
let dir: string;
let work: string;
let marker: string;
let n = 0;

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

beforeAll(async () => {
  t = await makeTempHome("gatehouse-attacks-");
  dir = path.join(t.home, "fx");
  work = path.join(dir, "work");
  marker = path.join(dir, "MARK");
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
  // a repository with one commit (file `a` holds the word "initial")
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: work, env: { ...t.env, GIT_CONFIG_NOSYSTEM: "1" }, stdio: "ignore" });
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
}, 60_000);
afterAll(async () => t?.cleanup());

function fill(text: string): string {
  return text
    .replaceAll("{M}", marker)
    .replaceAll("{D}", dir)
    .replaceAll("{PATH}", t.env.PATH ?? "");
}

/** Every program the attack allows exists here (else the attack is skipped, with the reason). */
function missing(attack: Attack): string | null {
  for (const name of attack.allow) {
    if (name.startsWith("./")) continue;
    if (!which(name, t.env)) return name;
  }
  return null;
}

async function approvalsFor(attack: Attack, settings: PolicySettings): Promise<ApprovalsStore> {
  const home = path.join(t.home, `e${++n}`);
  const store = new ApprovalsStore({
    path: path.join(home, "exec-approvals.json"),
    defaultSocketPath: path.join(home, "s.sock"),
  });
  await store.ensure();
  await store.setAgentSettings("defaults", settings);
  for (const name of attack.allow) {
    const found = name.startsWith("./") ? path.join(work, name.slice(2)) : (which(name, t.env) as string);
    await store.addEntry("local", { pattern: await fs.realpath(found) });
  }
  return store;
}

async function runThroughGate(attack: Attack, settings: PolicySettings, shell: string) {
  const store = await approvalsFor(attack, settings);
  const env = Object.fromEntries(Object.entries(attack.env ?? {}).map(([k, v]) => [k, fill(v)]));
  return gateAndRun(
    gateRequest(work, { command: { command: fill(attack.command), shell: "posix" }, env, timeoutMs: 20_000 }),
    gateDeps(t, {
      approvals: store,
      audit: new AuditLog({ path: path.join(t.home, `audit-${n}.jsonl`) }),
      baseEnv: { ...t.env, SHELL: shell },
    }),
  );
}

const cases = ATTACKS.map((attack, i) => ({
  firstOfClass: ATTACKS.findIndex((a) => a.cls === attack.cls) === i,
  ...attack,
  name: `${i + 1} (class ${attack.cls}) ${JSON.stringify(attack.command)}${attack.env ? ` env ${JSON.stringify(Object.keys(attack.env))}` : ""}`,
}));

describe("every attack of the corpus is stopped, run for real", () => {
  it.each(cases)("$name", async (attack) => {
    const absent = missing(attack);
    if (absent) {
      console.log(`skipped: ${absent} is not installed here`);
      return;
    }
    // the executor runs every string under bash whatever $SHELL says: every attack is run with SHELL=bash,
    // and the dash and zsh ones (plus the first of each class) with those as $SHELL too
    const shells = attack.realUnder || attack.firstOfClass ? Object.entries(SHELLS) : [["bash", SHELLS.bash]];
    for (const [name, shell] of shells) {
      if (!shell) continue;
      await fs.rm(marker, { force: true });
      const result = await runThroughGate(attack, LOCKED, shell);
      expect(
        existsSync(marker),
        `with SHELL=${name}: ${result.decision} (${result.reason}); ${result.stdout}${result.stderr}`,
      ).toBe(false);
    }
  });
});

describe("every attack of the corpus is real (it does what it says when nothing stops it)", () => {
  it.each(cases)("$name", async (attack) => {
    if (missing(attack) || (attack.notAsRoot && process.getuid?.() === 0)) return;
    const target = attack.realUnder ?? "bash";
    const shell = SHELLS[target];
    if (!shell) {
      console.log(`skipped: no ${target} here`);
      return;
    }
    await fs.rm(marker, { force: true });
    const env = Object.fromEntries(Object.entries(attack.env ?? {}).map(([k, v]) => [k, fill(v)]));
    spawnSync(shell, ["-c", fill(attack.command)], {
      cwd: work,
      env: { ...t.env, ...env, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: "ignore",
      timeout: 20_000,
    });
    expect(existsSync(marker), `under ${target} the attack did not create the marker`).toBe(true);
  });
});
