// issue 30 item 5 through the real CLI (`gatehouse workdir check --json`): the exemption of W from the
// rule for E compares names under W's own volume's case rule, probed, not folded on every platform.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { makeWorkdirFixture, type WorkdirFixture } from "./fixture.js";

let fx: WorkdirFixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

/** True when this machine's temp folder tells `Case` from `CASE` (the usual Linux volume). */
async function tempIsCaseSensitive(dir: string): Promise<boolean> {
  await fs.mkdir(path.join(dir, "Case"));
  const other = await fs.stat(path.join(dir, "CASE")).catch(() => null);
  await fs.rmdir(path.join(dir, "Case"));
  return other === null;
}

describe("the workspace's exemption from Gatehouse's own data (issue 30 item 5)", () => {
  it("with E inside an allowed root, E/WORKSPACE/x is refused on a case-sensitive volume while E/workspace/x is W", async (context) => {
    fx = await makeWorkdirFixture({ WEGENT_EXECUTOR_HOME: "~/Projects/.gh-data" });
    if (!(await tempIsCaseSensitive(fx.H))) context.skip();
    const E = path.join(fx.H, "Projects", ".gh-data");
    await fs.mkdir(path.join(E, "WORKSPACE", "x"), { recursive: true });
    await fs.mkdir(path.join(E, "workspace", "y"), { recursive: true });
    const check = async (p: string) => {
      const result = await runCli(["workdir", "check", p, "--json"], { env: fx!.env });
      return result.json<{ ok: boolean; code: string | null; root: string | null }>();
    };

    expect(await check(path.join(E, "WORKSPACE", "x"))).toMatchObject({
      ok: false,
      code: "sensitive-directory",
    });
    expect(await check("~/Projects/.gh-data/Workspace/../WORKSPACE/x")).toMatchObject({
      ok: false,
      code: "sensitive-directory",
    });
    expect(await check(path.join(E, "capabilities"))).toMatchObject({
      ok: false,
      code: "sensitive-directory",
    });
    // W itself and its folders are still usable workdirs (the exemption holds for W's exact names).
    expect(await check(path.join(E, "workspace", "y"))).toMatchObject({
      ok: true,
      root: path.join(E, "workspace"),
    });
  });
});
