// Issue 4: backend commands run in their session's workdir, through the real composition root
// (createServices with the device side) against the real Socket.IO test backend.
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import { createServices, type Services } from "../../../src/services.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { FAST_TIMINGS, noKeychainSecrets } from "../device/harness.js";

const DEVICE_ID = "device-00112233445566778899aabb";
let t: TempHome;
let backend: TestBackend;
let services: Services;

beforeEach(async () => {
  t = await makeTempHome("gatehouse-sessions-");
  backend = await startTestBackend({ token: "test-token" });
  for (const dir of ["Projects/foo", "Projects/bar", ".ssh"]) {
    await fs.mkdir(path.join(t.home, dir), { recursive: true });
  }
  await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
  await fs.writeFile(
    t.paths.deviceConfig,
    JSON.stringify({ device_id: DEVICE_ID, connection: { backend_url: backend.url } }),
    { mode: 0o600 },
  );
  const env = { ...t.env, WEGENT_AUTH_TOKEN: "test-token", LOCAL_WORKDIR_ALLOWED_ROOTS: "~/Projects" };
  const logger = createLogger({ sink: () => undefined });
  services = createServices({
    env,
    paths: t.paths,
    logger,
    presenter: null,
    device: { secrets: noKeychainSecrets(t, logger), timings: FAST_TIMINGS },
  });
  const started = await services.start();
  expect(started.status).toBe("listening");
  // The policy is not what this test is about: trust this machine.
  await services.approvals.applyPreset("trust");
  await waitFor(() => services.device?.state().state === "registered", { what: "registration" });
});

afterEach(async () => {
  await services.stop();
  await backend.close();
  await t.cleanup();
});

interface Ack {
  success: boolean;
  stdout: string;
  stderr: string;
  error?: string;
}

describe("device:execute_command in per-session workdirs", () => {
  it("two sessions bound to two folders each run in their own; a third asking for ~/.ssh gets the managed folder and the reason", async () => {
    const workdir = services.workdir!;
    await workdir.resolveForTask({ taskId: "101", workdir: "~/Projects/foo" });
    await workdir.resolveForTask({ taskId: "102", workdir: "~/Projects/bar" });

    const first = (await backend.executeCommand(DEVICE_ID, { argv: ["pwd"], task_id: 101 })) as Ack;
    const second = (await backend.executeCommand(DEVICE_ID, { argv: ["pwd"], task_id: 102 })) as Ack;
    expect(first.success).toBe(true);
    expect(first.stdout.trim()).toBe(path.join(t.home, "Projects/foo"));
    expect(second.stdout.trim()).toBe(path.join(t.home, "Projects/bar"));

    const third = (await backend.executeCommand(DEVICE_ID, {
      argv: ["pwd"],
      task_id: 103,
      cwd: "~/.ssh",
    })) as Ack;
    expect(third.stdout.trim()).toBe(await fs.realpath(workdir.workspaceRoot));
    expect(third.stderr).toContain(
      'Working folder "~/.ssh" can\'t be used: it is a protected folder. Using the managed folder',
    );
  });

  it("an exec.run through the approval socket runs in its session's bound folder, and a refused cwd says why", async () => {
    const { requestOnce } = await import("../../../src/approval-server/client.js");
    await services.workdir!.resolveForTask({ taskId: "201", workdir: "~/Projects/bar" });
    const reply = await requestOnce(t.paths, "exec.run", { argv: ["pwd"], sessionKey: "task:201" });
    expect(reply.status).toBe("ok");
    if (reply.status !== "ok") return;
    expect((reply.body as { stdout: string }).stdout.trim()).toBe(path.join(t.home, "Projects/bar"));

    const refused = await requestOnce(t.paths, "exec.run", {
      argv: ["pwd"],
      sessionKey: "local",
      cwd: "~/.ssh",
    });
    expect(refused.status).toBe("ok");
    if (refused.status !== "ok") return;
    const body = refused.body as { stdout: string; workdirFallback?: string };
    expect(body.stdout.trim()).toBe(await fs.realpath(services.workdir!.workspaceRoot));
    expect(body.workdirFallback).toContain(
      'Working folder "~/.ssh" can\'t be used: it is a protected folder.',
    );
  });
});
