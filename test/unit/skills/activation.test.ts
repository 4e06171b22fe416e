// skills.md §9–§10 and §13 cases 21, 22 and 25: the Skill tool, snapshots and the environment.
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolRegistry } from "../../../src/core/skills/index.js";
import { makeSkillFixture, type SkillFixture } from "./fixture.js";

let f: SkillFixture;
beforeEach(async () => (f = await makeSkillFixture()));
afterEach(async () => f.cleanup());

const wsSkill = (name: string, fields: Record<string, string> = {}, body = `# ${name}\nDo ${name}.`) =>
  f.skill(path.join(f.WS, ".clawseed/skills", name), { name, description: `About ${name}`, ...fields }, body);

describe("the Skill tool", () => {
  it("case 21: permissions are satisfied through the tool table, native names and exact names", async () => {
    await wsSkill(
      "auto-coder",
      { permissions: "[file_read, file_write, shell_exec]" },
      "# Auto Coder\nRead before you write.",
    );
    await wsSkill("bash-user", { permissions: "[Bash]" });
    await wsSkill("memo", { permissions: "[memory]" });
    const engine = f.engine();
    await engine.snapshot("s1", f.WS);
    const ok = await engine.handleSkillCall(
      "s1",
      { skill: "auto-coder" },
      new Set(["file_read", "file_write", "shell"]),
    );
    const location = path.join(f.WS, ".clawseed/skills/auto-coder/SKILL.md");
    expect(ok).toEqual({
      isError: false,
      text: `Skill 'auto-coder' activated.\n\n<active_skill name="auto-coder" location="${location}">\n# Auto Coder\nRead before you write.\n</active_skill>`,
    });

    await engine.snapshot("s2", f.WS);
    expect(
      await engine.handleSkillCall("s2", { skill: "auto-coder", action: "activate" }, new Set(["file_read"])),
    ).toEqual({
      isError: true,
      text: "Cannot activate 'auto-coder': no tool for file_write (needs one of file_write, file_edit); no tool for shell_exec (needs shell).",
    });
    expect((await engine.handleSkillCall("s2", { skill: "bash-user" }, new Set(["Bash"]))).isError).toBe(
      false,
    );
    expect((await engine.handleSkillCall("s2", { skill: "memo" }, new Set(["memory_recall"]))).isError).toBe(
      false,
    );
    // Claude Code's native names count as their canonical names.
    await engine.snapshot("s3", f.WS);
    const claude = toolRegistry(["Read", "Write", "Bash"]);
    expect((await engine.handleSkillCall("s3", { skill: "auto-coder" }, claude)).isError).toBe(false);
  });

  it("case 22: max_active limits the active set; repeats and unknown names get their exact texts", async () => {
    await f.settings({ max_active: 2 });
    for (const name of ["a", "b", "c"]) await wsSkill(name);
    const engine = f.engine();
    await engine.snapshot("s", f.WS);
    const call = (skill: string, action?: string) =>
      engine.handleSkillCall("s", action ? { skill, action } : { skill }, new Set());
    expect((await call("a")).text).toMatch(/^Skill 'a' activated\.\n\n<active_skill name="a"/);
    expect((await call("b")).isError).toBe(false);
    expect(await call("c")).toEqual({
      isError: true,
      text: "Cannot activate 'c': 2 skills are already active (limit 2). Deactivate one first.",
    });
    expect(await call("a")).toEqual({ isError: false, text: "Skill 'a' is already active." });
    expect(await call("c", "deactivate")).toEqual({ isError: false, text: "Skill 'c' is not active." });
    expect(await call("zzz")).toEqual({
      isError: true,
      text: "Unknown skill 'zzz'. Available skills: a, b, c.",
    });
    expect(await call("a", "deactivate")).toEqual({ isError: false, text: "Skill 'a' deactivated." });
    expect(engine.activeSkills("s")).toEqual(["b"]);
  });

  it("rejects an unknown action, an ineligible skill and a user-only skill with their exact texts", async () => {
    await wsSkill("needs-bin", {
      metadata: '{"openclaw":{"requires":{"bins":["nope-bin"],"env":["NOPE"]}}}',
    });
    await wsSkill("manual", { "disable-model-invocation": "true" });
    const engine = f.engine();
    await engine.snapshot("s", f.WS);
    expect(await engine.handleSkillCall("s", { skill: "manual", action: "start" }, new Set())).toEqual({
      isError: true,
      text: "Unknown action 'start'. Use activate or deactivate.",
    });
    expect(await engine.handleSkillCall("s", { skill: "needs-bin" }, new Set())).toEqual({
      isError: true,
      text: "Skill 'needs-bin' is not available: missing binary: nope-bin; missing env: NOPE.",
    });
    expect(await engine.handleSkillCall("s", { skill: "manual" }, new Set())).toEqual({
      isError: true,
      text: "Skill 'manual' can only be started by the user.",
    });
    expect(await engine.handleSkillCall("s", { skill: "other" }, new Set())).toEqual({
      isError: true,
      text: "Unknown skill 'other'. No skills are available.",
    });
    expect((await engine.handleSkillCall("s", { nope: 1 }, new Set())).isError).toBe(true);
  });

  it("rereads SKILL.md on activation and refuses a file that became invalid or renamed", async () => {
    const dir = await wsSkill("shifty");
    const engine = f.engine();
    await engine.snapshot("s", f.WS);
    await f.skill(dir, { name: "shifty" });
    expect(await engine.handleSkillCall("s", { skill: "shifty" }, new Set())).toEqual({
      isError: true,
      text: "Cannot activate 'shifty': SKILL.md is no longer valid (missing description).",
    });
    await f.skill(dir, { name: "shifted", description: "D" });
    expect((await engine.handleSkillCall("s", { skill: "shifty" }, new Set())).text).toBe(
      "Cannot activate 'shifty': SKILL.md is no longer valid (its name is now shifted).",
    );
    await f.skill(dir, { name: "shifty", description: "D" }, "New {baseDir} body");
    const result = await engine.handleSkillCall("s", { skill: "shifty" }, new Set());
    expect(result.text).toContain(`New ${dir} body`);
  });
});

describe("snapshots", () => {
  it("reuses the snapshot while the version holds; a new version deactivates skills no longer offered", async () => {
    const dir = await wsSkill("alpha");
    await wsSkill("beta");
    const engine = f.engine();
    const first = await engine.snapshot("s", f.WS);
    expect(first.entries.map((e) => e.name)).toEqual(["alpha", "beta"]);
    expect(await engine.snapshot("s", f.WS)).toBe(first);
    await engine.handleSkillCall("s", { skill: "alpha" }, new Set());
    await engine.handleSkillCall("s", { skill: "beta" }, new Set());
    expect(engine.sessionInstructions("s")).toBe(
      `${first.index.text}\n\n${engine.renderActive(first.entries[0]!, "# alpha\nDo alpha.")}\n\n${engine.renderActive(first.entries[1]!, "# beta\nDo beta.")}`,
    );

    await fs.rm(dir, { recursive: true });
    const { changed } = await engine.rescan();
    expect(changed).toBe(true);
    const second = await engine.snapshot("s", f.WS);
    expect(second.version).toBeGreaterThan(first.version);
    expect(second.hash).not.toBe(first.hash);
    expect(second.deactivated).toEqual(["Skill 'alpha' was deactivated: its folder is gone."]);
    expect(engine.activeSkills("s")).toEqual(["beta"]);
    // The turn that already started keeps its snapshot object unchanged.
    expect(first.entries.map((e) => e.name)).toEqual(["alpha", "beta"]);
  });

  it("a rescan that finds nothing new keeps the version; an unchanged hash keeps the active skills", async () => {
    await wsSkill("alpha");
    const engine = f.engine();
    const first = await engine.snapshot("s", f.WS);
    await engine.handleSkillCall("s", { skill: "alpha" }, new Set());
    expect(await engine.rescan()).toEqual({ changed: false, version: first.version });
    engine.notifyExternalChange();
    const second = await engine.snapshot("s", f.WS);
    expect(second.version).toBeGreaterThan(first.version);
    expect(second.hash).toBe(first.hash);
    expect(second.deactivated).toEqual([]);
    expect(engine.activeSkills("s")).toEqual(["alpha"]);
  });

  it("version bumps are max(now, version + 1)", async () => {
    let clock = 1000;
    const engine = f.engine({ now: () => clock });
    expect(engine.version).toBe(1000);
    engine.notifyExternalChange();
    expect(engine.version).toBe(1001);
    clock = 5000;
    engine.notifyExternalChange();
    expect(engine.version).toBe(5000);
  });
});

describe("environment for agent runs", () => {
  it("case 25: the overlay fills only missing variables, withSkillEnv removes exactly what it set, and no value is logged", async () => {
    const meta = '{"openclaw":{"requires":{"env":["GEMINI_API_KEY"]},"primaryEnv":"GEMINI_API_KEY"}}';
    await f.skill(path.join(f.H, ".claude/skills/nano-banana-pro"), {
      name: "nano-banana-pro",
      description: "D",
      metadata: meta,
    });
    await f.skill(path.join(f.H, ".claude/skills/other-gem"), {
      name: "other-gem",
      description: "D",
      metadata: meta,
    });
    f.secrets.values.set("ref-k1", "k1");
    f.secrets.values.set("ref-e", "e");
    f.secrets.values.set("ref-k2", "k2");
    await f.settings({
      entries: {
        "nano-banana-pro": { apiKey: "ref-k1", env: { EXTRA: "ref-e" } },
        "other-gem": { apiKey: "ref-k2" },
      },
    });
    const processEnv: Record<string, string | undefined> = { EXTRA: "user", PATH: process.env.PATH };
    const engine = f.engine({ processEnv });
    const snapshot = await engine.snapshot("s", f.WS);
    const base = { ...f.env, EXTRA: "user" };
    const overlay = engine.envOverlay(snapshot, base);
    expect(overlay).toEqual({ GEMINI_API_KEY: "k1" });

    const child = spawnSync(
      process.execPath,
      ["-e", "process.stdout.write(process.env.EXTRA + ' ' + process.env.GEMINI_API_KEY)"],
      {
        env: { ...base, ...overlay },
        encoding: "utf8",
      },
    );
    expect(child.stdout).toBe("user k1");

    const seen = await engine.withSkillEnv(
      overlay,
      async () => `${processEnv.GEMINI_API_KEY} ${processEnv.EXTRA}`,
    );
    expect(seen).toBe("k1 user");
    expect("GEMINI_API_KEY" in processEnv).toBe(false);
    await expect(
      engine.withSkillEnv(overlay, async () => {
        throw new Error("run failed");
      }),
    ).rejects.toThrow("run failed");
    expect("GEMINI_API_KEY" in processEnv).toBe(false);
    expect(processEnv.EXTRA).toBe("user");

    const logs = f.logLines.map((line) => line.split(f.H).join("").split(f.WS).join(""));
    expect(logs.some((line) => line.includes("nano-banana-pro") && line.includes("other-gem"))).toBe(true);
    expect(logs.filter((line) => line.includes("k1") || line.includes("k2"))).toEqual([]);
  });

  it("withSkillEnv runs one call at a time and uses the real process environment by default", async () => {
    const engine = f.engine();
    const variable = `GATEHOUSE_TEST_${process.pid}`;
    const order: string[] = [];
    await Promise.all([
      engine.withSkillEnv({ [variable]: "one" }, async () => {
        order.push(`start ${process.env[variable]}`);
        await new Promise((resolve) => setImmediate(resolve));
        order.push("end one");
      }),
      engine.withSkillEnv({ [variable]: "two" }, async () => {
        order.push(`start ${process.env[variable]}`);
        order.push("end two");
      }),
    ]);
    expect(order).toEqual(["start one", "end one", "start two", "end two"]);
    expect(process.env[variable]).toBeUndefined();
  });

  it("workspace winners get no settings variables unless allow_workspace is set", async () => {
    await wsSkill("ws-skill", { metadata: '{"openclaw":{"primaryEnv":"WS_KEY"}}' });
    f.secrets.values.set("ref-ws", "ws-secret");
    await f.settings({ entries: { "ws-skill": { apiKey: "ref-ws" } } });
    const engine = f.engine();
    expect(engine.envOverlay(await engine.snapshot("s", f.WS), {})).toEqual({});
    await f.settings({ entries: { "ws-skill": { apiKey: "ref-ws", allow_workspace: true } } });
    const fresh = f.engine();
    expect(fresh.envOverlay(await fresh.snapshot("s", f.WS), {})).toEqual({ WS_KEY: "ws-secret" });
  });
});
