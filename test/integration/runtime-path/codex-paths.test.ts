// Property: random apply_patch paths and exec_command workdirs land where Gatehouse's model of Codex says
// (issue 27 class 1). One real Codex turn (scripted Responses API) applies one patch adding N files at
// random paths — `..`, `.`, `~` (a plain name to Codex), links in the tree, letter-case and Unicode
// variants — then runs `pwd -P` in a few random workdirs, under a hook that allows all, as uid 65534
// with HOME in a jail that user owns. Each file must be at the real path of what codexOpenedPath gives;
// each `pwd -P` must print the real path of the modelled workdir, and the hook's cwd must be that
// workdir as Codex joined it. GH_PATH_SEED replays a run; GH_CODEX_BIN runs another version (0.169.0).
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { resolveRealForm } from "../../../src/core/workdir/io/path-check.js";
import { codexOpenedPath, type RuntimePathContext } from "../../../src/core/workdir/runtime-path.js";
import { REPO_ROOT } from "../../support/cli.js";
import { otherUserUnavailable, runProgramAsOtherUser } from "../../support/other-user.js";
import {
  codexProviderArgs,
  startScriptedOpenAi,
  type ResponsesRequest,
  type ScriptedOpenAi,
  type ScriptedResponse,
} from "../../support/scripted-openai.js";
import { makeJail, type Jail } from "./jail.js";
import { PATH_SEED, randomPaths } from "./random-paths.js";

const CODEX = process.env.GH_CODEX_BIN ?? path.join(REPO_ROOT, "node_modules", ".bin", "codex");
const COUNT = 40;
const WORKDIRS = 6;

let jail: Jail | undefined;
let api: ScriptedOpenAi | undefined;
afterEach(async () => {
  await api?.close();
  await jail?.cleanup();
  api = jail = undefined;
});

function outputsOf(request: ResponsesRequest): Array<{ output?: unknown }> {
  return (request.input ?? []).filter(
    (item) => item.type === "function_call_output" || item.type === "custom_tool_call_output",
  );
}

/** A hook that records each call's input and cwd and lets it run (exit 0, no output). */
async function allowAllHook(j: Jail): Promise<{ args: string[]; log: string }> {
  const log = path.join(j.root, "hook.log");
  const script = path.join(j.root, "hook.mjs");
  await fs.writeFile(
    script,
    `import fs from "node:fs"; let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const input = JSON.parse(s);
  fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ tool: input.tool_name, cwd: input.cwd }) + "\\n");
});`,
    { mode: 0o644 },
  );
  const hook = `{type="command",command=${JSON.stringify(`${process.execPath} ${script}`)},timeout=60}`;
  const args = [
    "--dangerously-bypass-hook-trust",
    ...["features.hooks=true", `hooks.PreToolUse=[{matcher="*",hooks=[${hook}]}]`]
      .concat(['sandbox_mode="danger-full-access"', 'approval_policy="never"', "allow_login_shell=false"])
      .concat(["features.unified_exec_tty=false"])
      .flatMap((o) => ["-c", o]),
  ];
  return { args, log };
}

/** Random existing folders to run in: relative, absolute, through links, with `..` and `.`. */
function randomWorkdirs(j: Jail, count: number, seed: number): string[] {
  const start = fc.constantFrom("", "./", `${j.work}/`, `${j.home}/`, "sib/");
  const names = fc.array(fc.constantFrom("a", "deep", "up", "sib", "..", "."), {
    minLength: 1,
    maxLength: 4,
  });
  return fc.sample(
    fc.tuple(start, names).map(([first, rest]) => `${first}${rest.join("/")}`),
    { numRuns: count * 4, seed },
  );
}

describe.skipIf(otherUserUnavailable !== null || !existsSync(CODEX))(
  "Codex's tool paths as Gatehouse models them",
  () => {
    it(`${COUNT} random apply_patch paths and ${WORKDIRS} exec_command workdirs land where the model says (seed ${PATH_SEED})`, async () => {
      jail = await makeJail("gh-codex-paths-");
      const j = jail;
      await fs.mkdir(path.join(j.home, ".codex"));
      await fs.chown(path.join(j.home, ".codex"), 65534, 65534);
      const ctx: RuntimePathContext = { platform: process.platform, home: j.home, base: j.work };
      const inJail = (p: string) => p.startsWith(`${j.root}/`);

      // A patch that fails half-way would hide where the rest lands: only paths the model keeps in the jail.
      const files: Array<{ n: number; raw: string; real: string }> = [];
      for (const { n, raw } of randomPaths(j, COUNT * 2, { trimmed: false, seed: PATH_SEED })) {
        const opened = codexOpenedPath(raw, ctx);
        if (!opened.ok) continue;
        const real = (await resolveRealForm(opened.path, process.platform)).resolved;
        if (inJail(real) && files.length < COUNT) files.push({ n, raw, real });
      }
      const workdirs: Array<{ raw: string; opened: string; real: string }> = [];
      for (const raw of randomWorkdirs(j, WORKDIRS, PATH_SEED)) {
        const opened = codexOpenedPath(raw, ctx);
        if (!opened.ok) continue;
        const real = await resolveRealForm(opened.path, process.platform);
        if (real.missing.length === 0 && inJail(real.resolved) && workdirs.length < WORKDIRS)
          workdirs.push({ raw, opened: opened.path, real: real.resolved });
      }
      const patch = [
        "*** Begin Patch",
        ...files.flatMap(({ n, raw }) => [`*** Add File: ${raw}`, `+file ${n}`]),
        // The issue's form: `..` down a link (deep → a/a/a) lands where the text says.
        "*** Add File: deep/../../../escape-marker",
        "+escaped",
        "*** End Patch",
        "",
      ].join("\n");
      const steps: ScriptedResponse[] = [
        { customCall: { name: "apply_patch", input: patch } },
        ...workdirs.map(({ raw }) => ({
          functionCall: { name: "exec_command", arguments: { cmd: "pwd -P", workdir: raw } },
        })),
      ];
      api = await startScriptedOpenAi((request) => steps[outputsOf(request).length] ?? { text: "Done." });
      const hook = await allowAllHook(j);
      const run = await runProgramAsOtherUser(
        CODEX,
        [
          "exec",
          "--json",
          "--skip-git-repo-check",
          ...hook.args,
          ...codexProviderArgs(api.baseUrl),
          "-c",
          'model="gpt-5.5"',
          "--",
          "Apply the patch.",
        ],
        {
          cwd: j.work,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: j.home,
            CODEX_HOME: path.join(j.home, ".codex"),
            SHELL: "/bin/bash",
            FAKE_KEY: "scripted-key",
          },
          timeoutMs: 120_000,
        },
      );
      expect(run.code, `${run.stderr.slice(-3000)}`).toBe(0);
      const outputs = outputsOf(api.requests.at(-1)!).map((o) => String(o.output));
      expect(outputs).toHaveLength(1 + workdirs.length);
      expect(outputs[0], `seed ${PATH_SEED}`).toContain("Success.");

      const landed = await j.landed();
      const misplaced = files.filter(({ n, real }) => landed.get(n) !== real);
      expect(
        misplaced.map(({ n, raw, real }) => ({ raw, wanted: real, got: landed.get(n) ?? null })),
        `seed ${PATH_SEED}`,
      ).toEqual([]);
      expect(files.length).toBeGreaterThan(COUNT / 2);
      expect(await fs.readFile(path.join(j.root, "escape-marker"), "utf8")).toBe("escaped\n");
      expect(existsSync(path.join(j.work, "escape-marker"))).toBe(false); // where links-first would put it

      const printed = outputs.slice(1).map((o) => o.trimEnd().split("\n").at(-1));
      expect(printed, `seed ${PATH_SEED}`).toEqual(workdirs.map((w) => w.real));
      const hookCwds = (await fs.readFile(hook.log, "utf8"))
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { tool: string; cwd: string })
        .filter((h) => h.tool === "Bash")
        .map((h) => h.cwd);
      expect(hookCwds, `seed ${PATH_SEED}`).toEqual(workdirs.map((w) => w.opened));
    }, 180_000);
  },
);
