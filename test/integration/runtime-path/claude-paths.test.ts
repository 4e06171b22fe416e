// Property: random Write paths land where Gatehouse's model of Claude Code says (issue 27 class 1). One
// real Claude Code turn (scripted Messages API) writes N files at random paths — `..`, `.`, `~`, links in
// the tree, letter-case and Unicode variants, Unicode spaces around them — under a hook that allows all,
// run as uid 65534 with HOME in a jail that user owns. Then each file is looked for: it must be at the
// real path of what claudeOpenedPath gives, and the path Claude Code showed the hook must model to the
// same place. GH_PATH_SEED replays a run; GH_CLAUDE_BIN runs another version (e.g. 2.1.197).
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveRealForm } from "../../../src/core/workdir/io/path-check.js";
import { claudeOpenedPath, type RuntimePathContext } from "../../../src/core/workdir/runtime-path.js";
import { REPO_ROOT } from "../../support/cli.js";
import { otherUserUnavailable, runProgramAsOtherUser } from "../../support/other-user.js";
import {
  startScriptedAnthropic,
  type ContentBlock,
  type MessagesRequest,
  type ScriptedAnthropic,
  claudeEnvFor,
} from "../../support/scripted-anthropic.js";
import { makeJail, type Jail } from "./jail.js";
import { PATH_SEED, randomPaths } from "./random-paths.js";

const CLAUDE = process.env.GH_CLAUDE_BIN ?? path.join(REPO_ROOT, "node_modules", ".bin", "claude");
const COUNT = 40;

let jail: Jail | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await api?.close();
  await jail?.cleanup();
  api = jail = undefined;
});

/** A PreToolUse hook that records its input and allows every call. */
async function allowAllHook(j: Jail): Promise<{ settings: string; log: string }> {
  const log = path.join(j.root, "hook.log");
  const script = path.join(j.root, "hook.mjs");
  await fs.writeFile(
    script,
    `import fs from "node:fs"; let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(JSON.parse(s).tool_input) + "\\n");
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "test" } }));
});`,
    { mode: 0o644 },
  );
  const settings = path.join(j.root, "settings.json");
  await fs.writeFile(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: ".*", hooks: [{ type: "command", command: `${process.execPath} ${script}` }] },
        ],
      },
    }),
    { mode: 0o644 },
  );
  return { settings, log };
}

/** Every tool_result block anywhere in a request's messages. */
function toolResultsIn(request: MessagesRequest): ContentBlock[] {
  return request.messages.flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result") : [],
  );
}

const SECRET = "secret-token-27-class-1";

/** The attack forms, aimed at the jail: a leading em-space before `~`, `..` down a link. */
function attacks(j: Jail) {
  return [
    {
      id: "toolu_attack_em",
      name: "Write",
      input: { file_path: "\u2003~/em-marker", content: "em\n" },
    },
    { id: "toolu_attack_read", name: "Read", input: { file_path: "\u2003~/secret-token" } },
    {
      id: "toolu_attack_deep",
      name: "Write",
      input: { file_path: `${j.work}/deep/../../../escape-marker`, content: "escaped\n" },
    },
  ];
}

function insideJail(p: string, j: Jail): boolean {
  return p.startsWith(`${j.root}/`);
}

describe.skipIf(otherUserUnavailable !== null || !existsSync(CLAUDE))(
  "Claude Code's file paths as Gatehouse models them",
  () => {
    it(`${COUNT} random Write paths land where the model says, and the hook sees a path that models the same (seed ${PATH_SEED})`, async () => {
      jail = await makeJail("gh-claude-paths-");
      const j = jail;
      const ctx: RuntimePathContext = { platform: process.platform, home: j.home, base: j.work };
      const paths = randomPaths(j, COUNT, { trimmed: true, seed: PATH_SEED });
      // Where each file must land, worked out before anything runs.
      const expected = await Promise.all(
        paths.map(async ({ raw }) => {
          const opened = claudeOpenedPath(raw, ctx);
          if (!opened.ok) return { modelled: null };
          const real = (await resolveRealForm(opened.path, process.platform)).resolved;
          return { modelled: opened.path, real };
        }),
      );
      const hook = await allowAllHook(j);
      await fs.writeFile(path.join(j.home, "secret-token"), SECRET);
      await fs.chown(path.join(j.home, "secret-token"), 65534, 65534);
      // One batch of Writes; once any tool result came back, the turn ends (2.1.197 may put a system
      // message after the results).
      api = await startScriptedAnthropic((request) =>
        toolResultsIn(request).length > 0
          ? { text: "Done." }
          : {
              toolUses: [
                ...paths.map(({ n, raw }) => ({
                  id: `toolu_path_${n}`,
                  name: "Write",
                  input: { file_path: raw, content: `file ${n}\n` },
                })),
                ...attacks(j),
              ],
            },
      );
      const run = await runProgramAsOtherUser(
        CLAUDE,
        ["-p", "Write the files.", "--settings", hook.settings, "--output-format", "json"],
        {
          cwd: j.work,
          env: claudeEnvFor(j.home, api),
          timeoutMs: 60_000,
        },
      );
      expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
      const results = toolResultsIn(api.requests.at(-1)!);
      expect(results.length).toBe(COUNT + attacks(j).length);

      // The attack forms of issue 27 are real when no gate is in the way: each lands where the model says.
      // (~/.zshenv itself Claude Code refuses as a sensitive file whatever the hook says: another name.)
      expect(await fs.readFile(path.join(j.home, "em-marker"), "utf8")).toBe("em\n");
      expect(await fs.readFile(path.join(j.root, "escape-marker"), "utf8")).toBe("escaped\n");
      expect(existsSync(path.join(j.work, "escape-marker"))).toBe(false); // where links-first would put it
      expect(JSON.stringify(results.find((r) => r.tool_use_id === "toolu_attack_read"))).toContain(SECRET);

      const landed = await j.landed();
      const refused = new Set(
        results
          .filter((r) => r.is_error === true)
          .map((r) => Number(/^toolu_path_(\d+)$/.exec(r.tool_use_id ?? "")?.[1])),
      );
      // Where a file landed is where the model says; Claude Code may also refuse a call on its own (a
      // write through a link that leads out of its working folder), then nothing lands anywhere.
      const mismatches = paths.flatMap(({ n, raw }) => {
        const want = expected[n]!;
        if (want.modelled === null) return []; // Gatehouse needs a person for these; where they land is moot
        const wanted = insideJail(want.real!, j) ? want.real : null;
        const got = landed.get(n) ?? null;
        if (got === wanted || (got === null && refused.has(n))) return [];
        return [{ raw, modelled: want.modelled, wanted, got, refused: refused.has(n) }];
      });
      expect(mismatches, `seed ${PATH_SEED}`).toEqual([]);
      // The model was exercised: most paths landed, some through links, some via `~`.
      expect(landed.size).toBeGreaterThan(COUNT / 2);

      const seen = (await fs.readFile(hook.log, "utf8"))
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { file_path: string });
      expect(seen.length).toBeGreaterThan(COUNT / 2);
      for (const { file_path } of seen) {
        const leaf = /f(\d+)\.txt\s*$/u.exec(file_path);
        if (!leaf) continue; // an attack form, checked above
        const n = Number(leaf[1]);
        const again = claudeOpenedPath(file_path, ctx);
        expect(again.ok && again.path, `hook saw ${JSON.stringify(file_path)} (seed ${PATH_SEED})`).toBe(
          expected[n]!.modelled,
        );
      }
    }, 180_000);
  },
);
