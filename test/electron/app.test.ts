// The packaged main process under a real Electron binary, driven by Playwright's `_electron`: the app
// starts, the tray is ready, a request over the approval socket opens the approval window, and a click
// on Allow once reaches the client. Where no Electron binary (or no display) exists these tests are
// reported as skipped with the reason; they never download anything.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { _electron as electron, type ElectronApplication } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { requestOnce } from "../../src/approval-server/client.js";
import { REPO_ROOT } from "../support/cli.js";
import { makeTempHome, type TempHome } from "../support/temp-home.js";
import { waitFor } from "../support/wait-for.js";

/** The Electron binary node_modules/electron already has, or why these tests cannot run here. */
function electronBinary(): { path: string } | { skip: string } {
  const dir = path.join(REPO_ROOT, "node_modules", "electron");
  const pathFile = path.join(dir, "path.txt");
  if (!fs.existsSync(pathFile)) {
    return {
      skip: "no Electron binary is installed (node_modules/electron/path.txt is missing; the tests never download one)",
    };
  }
  const binary = path.join(dir, "dist", fs.readFileSync(pathFile, "utf8").trim());
  if (!fs.existsSync(binary)) return { skip: `the Electron binary ${binary} is missing` };
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "src", "electron", "main.js"))) {
    return { skip: "the app is not built (npm run build)" };
  }
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "src", "electron", "preload.cjs"))) {
    return { skip: "the preload is not bundled (npm run build:preload)" };
  }
  if (!fs.existsSync(path.join(REPO_ROOT, "renderer", "dist", "index.html"))) {
    return { skip: "the renderer is not built (npm run build:renderer)" };
  }
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { skip: "there is no display (DISPLAY/WAYLAND_DISPLAY unset; run under xvfb-run)" };
  }
  return { path: binary };
}

const found = electronBinary();
const skip = "skip" in found ? found.skip : null;
if (skip) console.warn(`Skipping the Electron tests: ${skip}`);

describe.skipIf(skip)("the tray app under Electron", () => {
  let app: ElectronApplication | undefined;
  let t: TempHome | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await t?.cleanup();
    t = undefined;
  });

  async function launch(): Promise<{ app: ElectronApplication; t: TempHome }> {
    t = await makeTempHome("gatehouse-electron-", {
      GATEHOUSE_TEST_HOOKS: "1",
      GATEHOUSE_KEYCHAIN_SERVICE: "gatehouse-electron-test",
      ...(process.env.DISPLAY ? { DISPLAY: process.env.DISPLAY } : {}),
    });
    app = await electron.launch({
      executablePath: (found as { path: string }).path,
      args: [REPO_ROOT, "--no-sandbox"],
      env: t.env,
    });
    return { app, t };
  }

  it("starts with the tray ready and the approval socket listening", async () => {
    const { app: a, t: home } = await launch();
    await waitFor(() => fs.existsSync(home.paths.defaultSocket), {
      what: "the approval socket",
      timeoutMs: 30_000,
    });
    const tray = await waitFor(
      () =>
        a.evaluate(() =>
          (globalThis as { gatehouseShell?: { trayState(): unknown } }).gatehouseShell?.trayState(),
        ),
      { what: "the tray", timeoutMs: 30_000 },
    );
    expect(tray).toMatchObject({ menu: expect.arrayContaining([expect.objectContaining({ id: "quit" })]) });
  });

  it("a request over the socket opens the approval window, and Allow once reaches the client", async () => {
    const { app: a, t: home } = await launch();
    await waitFor(() => fs.existsSync(home.paths.defaultSocket), {
      what: "the approval socket",
      timeoutMs: 30_000,
    });
    const reply = requestOnce(
      home.paths,
      "approval.request",
      { argv: ["uname", "-a"], cwd: home.home, timeoutMs: 60_000 },
      { timeoutMs: 60_000 },
    );
    const window = await a.waitForEvent("window", { timeout: 30_000 });
    expect(window.url()).toBe("app://gatehouse/index.html#approval");
    await window.getByRole("dialog", { name: "Allow this command?" }).waitFor();
    await window.getByRole("button", { name: /Allow once/ }).click();
    const answer = await reply;
    expect(answer.status === "ok" && answer.body).toMatchObject({
      decision: "allow-once",
      decidedBy: "user",
    });
  });

  it("the renderer is served on app://gatehouse/ and nothing outside the bundle is", async () => {
    const { app: a, t: home } = await launch();
    await waitFor(() => fs.existsSync(home.paths.defaultSocket), {
      what: "the approval socket",
      timeoutMs: 30_000,
    });
    const statuses = await a.evaluate(async ({ net }) => {
      const status = async (url: string) => (await net.fetch(url)).status;
      return {
        page: await status("app://gatehouse/index.html"),
        up: await status("app://gatehouse/..%2f..%2fpackage.json"),
        encoded: await status("app://gatehouse/%2e%2e/%2e%2e/package.json"),
      };
    });
    expect(statuses.page).toBe(200);
    expect(statuses.up).toBeGreaterThanOrEqual(400);
    expect(statuses.encoded).toBeGreaterThanOrEqual(400);
    const menu = await a.evaluate(({ Menu }) => Menu.getApplicationMenu()?.items.map((i) => i.label) ?? null);
    expect(menu ?? []).not.toContain("View");
  });

  it("the app binary answers `hook claude` with only the hook's JSON, and the tray app does not start", async () => {
    t = await makeTempHome("gatehouse-electron-hook-", {
      ...(process.env.DISPLAY ? { DISPLAY: process.env.DISPLAY } : {}),
    });
    const home = t;
    const input = JSON.stringify({
      tool_name: "Bash",
      tool_input: { command: "touch marker" },
      cwd: home.home,
    });
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        (found as { path: string }).path,
        [REPO_ROOT, "hook", "claude", "--agent", "claude-code"],
        { env: home.env, stdio: ["pipe", "pipe", "ignore"] },
      );
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout }));
      child.stdin.end(input);
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    expect(fs.existsSync(home.paths.defaultSocket)).toBe(false);
  });
});
