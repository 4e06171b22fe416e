// sh-syntax stays alive between parses (issue 12): the kept instance must answer exactly what a fresh
// instance per parse (sh-syntax's own `parse`) answers, for accepted and rejected scripts alike, and
// after a long run of parses.
import { parse as freshParse } from "sh-syntax";
import { describe, expect, it } from "vitest";
import { parseScriptChecked } from "../../../src/core/policy/io/shell-script.js";
import { AGENT_COMMANDS } from "../../fixtures/policy/agent-commands.js";
import { ATTACKS } from "../../fixtures/policy/attack-corpus.js";

/** What parseScriptChecked reads from sh-syntax: each top-level statement's offset and background flag. */
async function freshStatements(text: string): Promise<string> {
  try {
    const file = (await freshParse(text, { keepComments: false })) as unknown as {
      Stmts?: { Pos: { Offset: number }; Background: boolean }[];
      Stmt?: { Pos: { Offset: number }; Background: boolean }[];
    };
    return JSON.stringify((file.Stmts ?? file.Stmt ?? []).map((s) => [s.Pos.Offset, s.Background]));
  } catch (error) {
    return `error: ${(error as { Text?: string; message?: string }).Text ?? (error as Error).message}`;
  }
}

const BROKEN = ["echo 'unterminated", "if then fi", "a &&", "$(", "echo )", "cat <<EOF\nno end", "fi"];

describe("the kept sh-syntax instance", () => {
  it("agrees with a fresh instance on every agent command, attack and broken script", async () => {
    const texts = [...AGENT_COMMANDS.map((c) => c.command), ...ATTACKS.map((a) => a.command), ...BROKEN];
    for (const text of texts) {
      const fresh = await freshStatements(text);
      const kept = await parseScriptChecked(text);
      if (fresh.startsWith("error: ")) {
        expect(kept.ok, text).toBe(false);
        if (!kept.ok && kept.error.startsWith("the shell parser rejected it: "))
          expect(kept.error, text).toBe(`the shell parser rejected it: ${fresh.slice(7)}`);
      } else if (kept.ok) {
        expect(kept.script.length, text).toBe((JSON.parse(fresh) as unknown[]).length);
      }
    }
  });

  it("still parses correctly after thousands of parses, including rejected ones", async () => {
    for (let i = 0; i < 3_000; i++) {
      const text = i % 3 === 0 ? `echo 'open ${i}` : `grep -n "item ${i}" src/file${i}.ts | head -${i % 50}`;
      const result = await parseScriptChecked(text);
      expect(result.ok, text).toBe(i % 3 !== 0);
    }
    const last = await parseScriptChecked("git status && npm test & sleep 1");
    expect(last).toMatchObject({ ok: true });
    if (last.ok) expect(last.script.map((s) => s.background)).toEqual([true, false]);
  });
});
