// Issue "Close the gate": every attack of the corpus (test/fixtures/policy/attack-corpus.ts), run for real
// through the gate — policy, then the executor spawning bash — with `security=allowlist ask=off
// askFallback=deny` and only the programs the attack names on the allowlist. The marker file must not
// appear and no secret may be printed, whatever `$SHELL` the runner has (bash, dash, zsh). Unguarded,
// the same command does create the marker or print the secret (run by the shell the attack targets),
// which proves every instance is a real attack and not a typo the gate never had to stop. A read of
// Gatehouse's own folder stays stopped under security=full too.
//
// Attacks run only as an unprivileged user: one node script (test/support/attack-runner.ts, built into
// dist/) runs all of them as uid 65534 in a temp folder that user owns and has as HOME, and reports what
// each did. Only root can start it as that user; elsewhere this file is skipped with the reason.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTACKS } from "../../fixtures/policy/attack-corpus.js";
import { REPO_ROOT } from "../../support/cli.js";
import { OTHER_UID, otherUserUnavailable, runFileAsOtherUser } from "../../support/other-user.js";
import type { AttackResult } from "../../support/attack-runner.js";

const RUNNER = path.join(REPO_ROOT, "dist/test/support/attack-runner.js");

let root: string;
const results = new Map<number, AttackResult>();

const cases = ATTACKS.map((attack, index) => ({
  index,
  ...attack,
  name: `${index + 1} (class ${attack.cls}) ${JSON.stringify(attack.command)}${attack.env ? ` env ${JSON.stringify(Object.keys(attack.env))}` : ""}`,
}));

describe.skipIf(otherUserUnavailable !== null)(
  `the attack corpus, run as uid ${OTHER_UID}${otherUserUnavailable ? ` (skipped: ${otherUserUnavailable})` : ""}`,
  () => {
    beforeAll(async () => {
      root = await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-attacks-"));
      await fs.chown(root, OTHER_UID, OTHER_UID);
      await fs.chmod(root, 0o700);
      const out = runFileAsOtherUser(RUNNER, [root], {
        cwd: root,
        env: {
          PATH: "/usr/local/bin:/usr/bin:/bin",
          HOME: root,
          LANG: "C.UTF-8",
          // in this process's own environment, for the attacks that read other processes' (/proc)
          GATEHOUSE_ATTACK_SECRET: `GATEHOUSE_ATTACK_SECRET_${randomBytes(8).toString("hex")}`,
        },
        timeoutMs: 900_000,
      });
      for (const result of JSON.parse(out) as AttackResult[]) results.set(result.index, result);
    }, 960_000);
    afterAll(async () => {
      if (root) await fs.rm(root, { recursive: true, force: true });
    });

    describe("every attack is stopped, run for real through the gate", () => {
      it.each(cases)("$name", ({ index }) => {
        const result = results.get(index);
        expect(result, "the runner reported no result").toBeDefined();
        if (result?.skipped) {
          console.log(`skipped: ${result.skipped}`);
          return;
        }
        for (const run of result?.gated ?? [])
          expect(run.hit, `with SHELL=${run.shell}: ${run.decision} (${run.reason}); ${run.output}`).toBe(
            false,
          );
        if (result?.full)
          expect(
            result.full.hit,
            `under security=full: ${result.full.decision} (${result.full.reason})`,
          ).toBe(false);
      });
    });

    describe("every attack is real (it does what it says when nothing stops it)", () => {
      it.each(cases)("$name", ({ index, realUnder, secret }) => {
        const result = results.get(index);
        if (!result || result.skipped) return;
        if (result.real?.reason) {
          console.log(`skipped: ${result.real.reason}`);
          return;
        }
        const what = secret ? `print the ${secret}` : "create the marker";
        expect(result.real?.hit, `under ${realUnder ?? "bash"} the attack did not ${what}`).toBe(true);
      });
    });
  },
);
