// The false-positive rate of the positive model over commands agents really send
// (test/fixtures/policy/agent-commands.ts): with every program a command uses on the allowlist, a
// harmless command must run without a person. Programs are stand-ins on a PATH of their own, so the
// figure does not depend on what this machine has installed. The rate is printed and must stay under 5 %.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeCommand, explainCommand, ownFilesOf, ScriptCache } from "../../../src/core/policy/index.js";
import { AGENT_COMMANDS } from "../../fixtures/policy/agent-commands.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { approvalsWith, entry } from "./policy-fixture.js";

let t: TempHome;
let bin: string;
let cwd: string;
let env: Record<string, string>;
const scripts = new ScriptCache(1024);

beforeAll(async () => {
  t = await makeTempHome("gatehouse-fp-");
  bin = path.join(t.home, "bin");
  cwd = path.join(t.home, "repo");
  await fs.mkdir(bin, { recursive: true });
  await fs.mkdir(cwd, { recursive: true });
  env = { PATH: bin, HOME: t.home };
  // one stand-in for every program any command names (found by analysing them once)
  const names = new Set<string>();
  for (const { command } of AGENT_COMMANDS) {
    const analysis = await analyzeCommand({ command }, { cwd, env, home: t.home, scripts });
    for (const segment of analysis.segments) {
      if (segment.builtin || !/^[\w.[+-]+$/.test(segment.executable)) continue;
      names.add(segment.executable);
    }
    for (const segment of analysis.segments) {
      if (segment.executable.startsWith("./")) {
        const file = path.join(cwd, segment.executable);
        await fs.mkdir(path.dirname(file), { recursive: true });
        await fs.writeFile(file, "#!/bin/sh\n", { mode: 0o755 });
      }
    }
  }
  for (const name of names) await fs.writeFile(path.join(bin, name), "#!/bin/sh\n", { mode: 0o755 });
}, 120_000);
afterAll(async () => t?.cleanup());

/** Explains `command` with every program it uses on the allowlist. */
async function withItsProgramsAllowed(command: string) {
  const analysis = await analyzeCommand({ command }, { cwd, env, home: t.home, scripts });
  const entries = [
    ...new Set(analysis.segments.flatMap((s) => (s.resolvedPath ? [s.resolvedPath] : []))),
  ].map((p, i) => entry(p, { id: `e${i}` }));
  // as the app decides: with Gatehouse's own files, so the read rule applies (file-reads.ts)
  const ownFiles = ownFilesOf(t.paths);
  return explainCommand(
    { command },
    {
      agentId: "local",
      cwd,
      env,
      home: t.home,
      approvals: approvalsWith(entries),
      now: 0,
      scripts,
      ownFiles,
    },
  );
}

describe("false positives over real agent commands", () => {
  it("has at least 300 commands agents send", () => {
    expect(AGENT_COMMANDS.length).toBeGreaterThanOrEqual(300);
  });

  it("with their programs allowlisted, under 5 % of the harmless ones need a person", async () => {
    const harmless = AGENT_COMMANDS.filter((c) => !c.prompt);
    const prompted: string[] = [];
    for (const { command } of harmless) {
      const e = await withItsProgramsAllowed(command);
      if (e.outcome !== "run") {
        const why = e.flagDetails.filter((f) => !f.coveredBy).map((f) => `${f.kind}: ${f.detail}`);
        const misses = e.segments
          .filter((s) => !s.matchedEntryId && !s.builtin)
          .map((s) => `${s.executable}: ${s.missReason}`);
        prompted.push(`${JSON.stringify(command)} — ${[...why, ...misses].join("; ")}`);
      }
    }
    const rate = prompted.length / harmless.length;
    console.log(
      `false positives: ${prompted.length} of ${harmless.length} harmless agent commands (${(rate * 100).toFixed(1)} %)` +
        (prompted.length ? `\n  ${prompted.join("\n  ")}` : ""),
    );
    expect(rate).toBeLessThan(0.05);
  }, 120_000);

  it("the commands that need a person by design do need one, for the reason given", async () => {
    for (const { command, prompt } of AGENT_COMMANDS.filter((c) => c.prompt)) {
      const e = await withItsProgramsAllowed(command);
      expect(e.outcome, `${command} (${prompt})`).toBe("prompt");
    }
  });
});
