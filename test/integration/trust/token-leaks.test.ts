// The backend token never leaves the process unredacted, attacked three ways through the real
// `gatehouse serve` against the test backend: a token with a control character (its download header
// fails and the error quotes it), a backend that echoes the token in `connect_error`, and one that
// echoes it in its acks. The token must not reach the backend's acks, E/status.json,
// E/capabilities/last-sync.json, `gatehouse status --json` or `gatehouse caps status`. The CLI runs
// without the token in its environment, so only what was redacted at the source can pass.
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { lastSyncFile } from "../../../src/core/capabilities/index.js";
import { statusFilePath } from "../../../src/device/status-file.js";
import { startTestBackend, type TestBackend } from "../../../src/demo-backend/server.js";
import { runCli } from "../../support/cli.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startServe, type ServeProcess } from "../approval-server/serve-process.js";

const DEVICE_ID = "device-0123456789abcdef01234567";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

interface Runner {
  t: TempHome;
  backend: TestBackend;
  serve: ServeProcess;
}

/** A device home configured for `backend`, served by a real `gatehouse serve` with `token` in its environment. */
async function runner(
  token: string,
  setUp: (backend: TestBackend) => void = () => undefined,
): Promise<Runner> {
  const backend = await startTestBackend({ token, installed: { skills: [1336], plugins: [], mcps: [] } });
  cleanups.push(() => backend.close());
  setUp(backend);
  const t = await makeTempHome("gh-leak-");
  cleanups.push(() => t.cleanup());
  await fs.mkdir(t.paths.executorHome, { recursive: true, mode: 0o700 });
  await fs.writeFile(
    t.paths.deviceConfig,
    JSON.stringify({
      mode: "local",
      device_type: "local",
      device_id: DEVICE_ID,
      runtime_instance_id: "runtime-0123456789abcdef01234567",
      device_name: "",
      connection: { backend_url: backend.url, socket_url: "", auth_token: "" },
    }),
    { mode: 0o600 },
  );
  const serve = await startServe({ ...t.env, WEGENT_AUTH_TOKEN: token });
  cleanups.push(() => serve.stop());
  return { t, backend, serve };
}

/** The forms the token could take in what was written or sent: as is, and JSON-escaped. */
function expectNoToken(text: string, token: string, where: string): void {
  for (const form of [token, JSON.stringify(token).slice(1, -1)]) {
    expect(text.includes(form), `${where} holds the token`).toBe(false);
  }
}

function readStatus(r: Runner): { connection: { lastError: string | null } } | null {
  try {
    return JSON.parse(readFileSync(statusFilePath(r.t.paths), "utf8")) as {
      connection: { lastError: string | null };
    };
  } catch {
    return null;
  }
}

async function statusOutputs(r: Runner): Promise<string> {
  // No token in the CLI's environment: it cannot redact what it does not know.
  const json = await runCli(["status", "--json"], { env: r.t.env });
  const text = await runCli(["status"], { env: r.t.env });
  expect(json.code).toBe(0);
  return json.stdout + text.stdout;
}

describe("the backend token never leaves unredacted", () => {
  it("a token with a control character: the failed download's error is redacted in the ack, last-sync.json and caps status", async () => {
    const token = "wg-ctl\ntoken-0123456789abcdef";
    const r = await runner(token);
    const acks = await waitFor(
      () => r.backend.device(DEVICE_ID)?.syncAcks.length && r.backend.device(DEVICE_ID)!.syncAcks,
      {
        what: "the sync ack",
        timeoutMs: 30_000,
      },
    );
    const ack = JSON.stringify(acks);
    expect(ack).toContain("invalid header value"); // the failure is reported …
    expect(ack).toContain("[redacted]"); // … without the token
    expectNoToken(ack, token, "the sync ack");

    const lastSync = await waitFor(() => fs.readFile(lastSyncFile(r.t.paths.capabilitiesDir), "utf8"), {
      what: "last-sync.json",
    });
    expect(lastSync).toContain("[redacted]");
    expectNoToken(lastSync, token, "last-sync.json");

    const capsJson = await runCli(["caps", "status", "--json"], { env: r.t.env });
    const capsText = await runCli(["caps", "status"], { env: r.t.env });
    expect(capsText.stdout).toContain("[redacted]");
    expectNoToken(capsJson.stdout + capsText.stdout, token, "gatehouse caps status");
    expectNoToken(r.serve.stderr() + r.serve.stdout(), token, "the runner's log");
  });

  it("a backend that echoes the token in connect_error: status.json and gatehouse status show it redacted", async () => {
    const token = "wg-echo-connect-0123456789abcdef";
    const r = await runner(token, (backend) => {
      backend.behaviour.refuseAuth = ({ token: sent }) => `Invalid or expired token ${sent}`;
    });
    const status = await waitFor(
      () => {
        const current = readStatus(r);
        return current?.connection.lastError?.includes("Invalid or expired") ? current : null;
      },
      { what: "the refusal in status.json", timeoutMs: 30_000 },
    );
    expect(status.connection.lastError).toBe("Invalid or expired token [redacted]");
    expectNoToken(readFileSync(statusFilePath(r.t.paths), "utf8"), token, "status.json");
    const printed = await statusOutputs(r);
    expect(printed).toContain("Invalid or expired token [redacted]");
    expectNoToken(printed, token, "gatehouse status");
  });

  it("a backend that echoes the token in its register and heartbeat acks: status.json and gatehouse status show it redacted", async () => {
    const token = "wg-echo-ack-0123456789abcdef";
    const r = await runner(token, (backend) => {
      backend.behaviour.registerReply = (_payload, { token: sent }) => ({
        error: `unknown device for ${sent}`,
      });
    });
    await waitFor(() => readStatus(r)?.connection.lastError?.includes("unknown device"), {
      what: "the register refusal in status.json",
      timeoutMs: 30_000,
    });
    expect(readStatus(r)!.connection.lastError).toBe(
      "device registration was rejected by backend: unknown device for [redacted]",
    );
    expectNoToken(readFileSync(statusFilePath(r.t.paths), "utf8"), token, "status.json");
    expectNoToken(await statusOutputs(r), token, "gatehouse status");

    r.backend.behaviour.registerReply = null;
    r.backend.behaviour.heartbeatReply = (_payload, { token: sent }) => ({
      error: `heartbeat refused for ${sent}`,
    });
    await waitFor(() => readStatus(r)?.connection.lastError?.includes("heartbeat refused"), {
      what: "the heartbeat refusal in status.json",
      timeoutMs: 60_000,
    });
    expect(readStatus(r)!.connection.lastError).toContain("heartbeat refused for [redacted]");
    expectNoToken(readFileSync(statusFilePath(r.t.paths), "utf8"), token, "status.json");
    expectNoToken(await statusOutputs(r), token, "gatehouse status");
    expectNoToken(r.serve.stderr() + r.serve.stdout(), token, "the runner's log");
  });
});
