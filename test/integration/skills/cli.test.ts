// `gatehouse skills …` through the real built CLI: skills.md §13 cases 1, 4, 11, 18 and 20 as the
// user sees them in `gatehouse skills list --json`, plus index, check and rescan.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Catalogue, SkillEntry } from "../../../src/core/skills/index.js";
import { runCli } from "../../support/cli.js";
import { makeSkillFixture, type SkillFixture } from "../../unit/skills/fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

async function list(...args: string[]): Promise<Catalogue> {
  const result = await runCli(["skills", "list", "--json", ...args], { env: f.env });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result.json<Catalogue>();
}

const named = (catalogue: Catalogue, name: string): SkillEntry[] =>
  catalogue.skills.filter((s) => s.name === name);

describe("gatehouse skills list --json", () => {
  it("case 1: three entries named demo; the workspace clawseed one wins and is the one indexed", async () => {
    await f.skill(path.join(f.WS, ".clawseed/skills/demo"), {
      name: "demo",
      description: "Workspace version",
    });
    await f.skill(path.join(f.WS, "skills/demo"), { name: "demo", description: "Root version" });
    await f.skill(path.join(f.H, ".claude/skills/demo"), { name: "demo", description: "User version" });
    const catalogue = await list("--workspace", f.WS);
    const winner = path.join(f.WS, ".clawseed/skills/demo");
    expect(named(catalogue, "demo").map((e) => [e.path, e.shadowed_by, e.offered])).toEqual([
      [winner, null, true],
      [path.join(f.WS, "skills/demo"), winner, false],
      [path.join(f.H, ".claude/skills/demo"), winner, false],
    ]);
    expect(catalogue.workspace).toBe(f.WS);
    expect(catalogue.index.count).toBe(1);

    const index = await runCli(["skills", "index", "--workspace", f.WS], { env: f.env });
    expect(index.code).toBe(0);
    expect(index.stdout).toContain("Workspace version");
    expect(index.stdout).toContain(`${winner}/SKILL.md`);
    expect(index.stdout).not.toContain(path.join(f.WS, "skills/demo"));
    expect(index.stdout).not.toContain(path.join(f.H, ".claude/skills/demo"));
    expect(index.stdout.length).toBe(catalogue.index.cost_chars + 1); // plus the final newline
    expect(index.stderr).toBe(
      `1 skills, ${catalogue.index.cost_chars} characters (~${catalogue.index.cost_tokens} tokens)\n`,
    );
  });

  it("case 4: an invalid workspace entry is listed but never shadows the Codex entry", async () => {
    await f.skill(path.join(f.WS, "skills/x"), { name: "x" });
    await f.skill(path.join(f.H, ".codex/skills/x"), { name: "x", description: "Codex x" });
    const catalogue = await list("--workspace", f.WS);
    const [ws, codex] = named(catalogue, "x");
    expect(ws).toMatchObject({
      valid: false,
      errors: ["missing description"],
      shadowed_by: null,
      offered: false,
    });
    expect(codex).toMatchObject({ source: "codex", offered: true });
  });

  it("case 11: a YAML error is reported with its file line while the other skills are listed", async () => {
    await f.skill(path.join(f.H, ".claude/skills/bad"), { name: "bad", description: "Use when: testing" });
    await f.skill(path.join(f.H, ".claude/skills/good"), { name: "good", description: "Fine" });
    await f.write(
      path.join(f.H, ".claude/skills/only-manifest/manifest.toml"),
      '[skill]\nname = "only-manifest"\n',
    );
    await f.write(path.join(f.H, ".claude/skills/plain/SKILL.md"), "no frontmatter here\n");
    const catalogue = await list();
    expect(named(catalogue, "bad")[0]?.valid).toBe(false);
    expect(named(catalogue, "bad")[0]?.errors[0]).toMatch(/^invalid YAML at line 3:/);
    expect(named(catalogue, "good")[0]?.valid).toBe(true);
    expect(named(catalogue, "only-manifest")[0]?.errors).toEqual(["missing SKILL.md"]);
    expect(named(catalogue, "plain")[0]?.errors).toEqual(["no frontmatter"]);
  });

  it("case 18: the synced link is wegent-managed with the store folder as realpath", async () => {
    const store = path.join(f.H, ".wegent-executor/capabilities/store/skills/42-default-image-gen");
    await f.skill(store, { name: "image-gen", description: "Images" });
    const link = path.join(f.H, ".claude/skills/image-gen");
    await fs.mkdir(path.dirname(link), { recursive: true });
    await fs.symlink(store, link);
    await f.write(
      path.join(f.H, ".wegent-executor/capabilities/manifest.json"),
      JSON.stringify({
        version: 1,
        revision: 3,
        skills: { "image-gen": { managed: true, store_path: store } },
      }),
    );
    await f.skill(path.join(f.H, ".claude/skills/local-review"), {
      name: "local-review",
      description: "Review",
    });
    const catalogue = await list();
    expect(named(catalogue, "image-gen")[0]).toMatchObject({
      source: "wegent-managed",
      path: link,
      realpath: store,
      skill_file: `${link}/SKILL.md`,
    });
    expect(named(catalogue, "local-review")[0]?.source).toBe("user");
  });

  it("case 20: an extra root ranks below Codex, and --workspace H lists H/.claude/skills once as rank 2", async () => {
    const X = path.join(f.H, "extra-root");
    await f.settings({ extra_roots: [X] });
    await f.skill(path.join(X, "demo"), { name: "demo", description: "Extra" });
    await f.skill(path.join(f.H, ".codex/skills/demo"), { name: "demo", description: "Codex" });
    await f.skill(path.join(f.H, ".claude/skills/mine"), { name: "mine", description: "Mine" });
    const plain = await list();
    expect(named(plain, "demo").map((e) => [e.source, e.rank, e.shadowed_by])).toEqual([
      ["codex", 6, null],
      ["extra", 8, path.join(f.H, ".codex/skills/demo")],
    ]);
    const home = await list("--workspace", f.H);
    expect(
      home.roots.filter((r) => r.path === path.join(f.H, ".claude/skills")).map((r) => [r.rank, r.source]),
    ).toEqual([[2, "workspace"]]);
    expect(named(home, "mine").map((e) => [e.rank, e.source])).toEqual([[2, "workspace"]]);
    const paths = home.skills.map((s) => s.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("--agent shows the subset of the index a runtime gets next to its native discovery", async () => {
    await f.skill(path.join(f.H, ".claude/skills/claude-native"), {
      name: "claude-native",
      description: "C",
    });
    await f.skill(path.join(f.H, ".codex/skills/codex-native"), { name: "codex-native", description: "X" });
    await f.skill(path.join(f.H, ".clawseed/skills/shared"), { name: "shared", description: "S" });
    const claude = (await list("--agent", "claude")) as Catalogue & { runtime_index: { names: string[] } };
    expect(claude.runtime_index.names).toEqual(["codex-native", "shared"]);
    const codex = (await list("--agent", "codex")) as Catalogue & { runtime_index: { names: string[] } };
    expect(codex.runtime_index.names).toEqual(["claude-native", "shared"]);
    const bad = await runCli(["skills", "list", "--agent", "gpt"], { env: f.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown agent "gpt"');
  });
});

describe("gatehouse skills check / rescan", () => {
  it("check exits 0 for an eligible skill and 1 with the reasons for an ineligible or unknown one", async () => {
    await f.skill(path.join(f.H, ".claude/skills/ready"), { name: "ready", description: "R" });
    await f.skill(path.join(f.H, ".claude/skills/blocked"), {
      name: "blocked",
      description: "B",
      metadata: '{"openclaw":{"requires":{"bins":["nope-bin"]}}}',
    });
    const ready = await runCli(["skills", "check", "ready", "--json"], { env: f.env });
    expect(ready.code).toBe(0);
    expect(ready.json()).toMatchObject({ name: "ready", eligible: true, offered: true, reasons: [] });

    const blocked = await runCli(["skills", "check", "blocked"], { env: f.env });
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toContain("blocked: not eligible");
    expect(blocked.stdout).toContain("missing binary: nope-bin");

    const unknown = await runCli(["skills", "check", "nothing", "--json"], { env: f.env });
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({
      found: false,
      eligible: false,
      reasons: ["unknown skill: nothing"],
    });

    const usage = await runCli(["skills", "check"], { env: f.env });
    expect(usage.code).toBe(2);
  });

  it("rescan summarises the catalogue and leaves a request for a running Gatehouse", async () => {
    await f.skill(path.join(f.H, ".claude/skills/one"), { name: "one", description: "One" });
    const result = await runCli(["skills", "rescan", "--json"], { env: f.env });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ skills: 1, offered: 1, invalid: 0 });
    const request = JSON.parse(
      await fs.readFile(path.join(f.H, ".wegent-executor/skills-rescan.json"), "utf8"),
    );
    expect(typeof request.requested_at).toBe("number");
  });

  it("an invalid skills section in settings.json is a clear error and changes nothing", async () => {
    await f.settings({ watch_debounce_ms: -1 });
    const before = await fs.readFile(f.paths.settings, "utf8");
    const result = await runCli(["skills", "list", "--json"], { env: f.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("settings.json is invalid: skills.watch_debounce_ms");
    expect(await fs.readFile(f.paths.settings, "utf8")).toBe(before);
  });
});
