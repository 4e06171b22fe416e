import { afterEach, describe, expect, it } from "vitest";
import { askViaPaths, createAskViaPresenter } from "../../../src/approval-server/presenter-ask-via.js";
import { silentLogger } from "../../../src/core/log.js";
import { requestOnce } from "../../../src/approval-server/client.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { waitFor } from "../../support/wait-for.js";
import { startGatehouse, writePolicy, type RunningGatehouse } from "./fixtures.js";
import { startServe, type ServeProcess } from "./serve-process.js";

const running: RunningGatehouse[] = [];
const homes: TempHome[] = [];
let serve: ServeProcess | null = null;

afterEach(async () => {
  await serve?.stop();
  serve = null;
  for (const g of running.splice(0)) await g.stop();
  for (const h of homes.splice(0)) await h.cleanup();
});

async function pair(): Promise<{ asked: RunningGatehouse; forwarding: RunningGatehouse }> {
  const asked = await startGatehouse();
  running.push(asked);
  asked.services.broker.attachUi();
  const presenter = createAskViaPresenter({
    target: askViaPaths(asked.t.paths.executorHome, asked.t.env),
    logger: silentLogger,
  });
  const forwarding = await startGatehouse({ presenter });
  running.push(forwarding);
  return { asked, forwarding };
}

describe("ask-via presenter", () => {
  it("forwards a prompt to the Gatehouse of another home and maps the person's answer back", async () => {
    const { asked, forwarding } = await pair();
    const client = await forwarding.client();
    const pending = client.request("approval.request", {
      argv: ["rm", "-rf", "build"],
      cwd: "/tmp",
      agentId: "claude-code",
    });
    const [prompt] = await waitFor(
      () => (asked.services.broker.list().length ? asked.services.broker.list() : null),
      {
        what: "the forwarded prompt",
      },
    );
    expect(prompt).toMatchObject({
      agentId: "claude-code",
      source: "ask-via:socket",
      command: { argv: ["rm", "-rf", "build"] },
    });
    asked.services.broker.decide(prompt!.id, { decision: "allow-once" });
    expect(await pending).toMatchObject({
      status: "ok",
      body: { decision: "allow-once", decidedBy: "user" },
    });
  });

  it("withdraws the forwarded prompt when the original requester goes away", async () => {
    const { asked, forwarding } = await pair();
    const client = await forwarding.client();
    void client.request("approval.request", { argv: ["rm", "x"], cwd: "/tmp" });
    await waitFor(() => asked.services.broker.list().length === 1);
    client.close();
    await waitFor(() => asked.services.broker.list().length === 0, {
      what: "the forwarded prompt to be withdrawn",
    });
  });

  it("lets this home's askFallback decide when the other Gatehouse is not running", async () => {
    const other = await makeTempHome("gh-other-");
    homes.push(other);
    await writePolicy(other.paths);
    const presenter = createAskViaPresenter({
      target: askViaPaths(other.paths.executorHome, other.env),
      logger: silentLogger,
    });
    const forwarding = await startGatehouse({ presenter });
    running.push(forwarding);
    const result = await (
      await forwarding.client()
    ).request("approval.request", { argv: ["rm", "x"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "no-approver", decidedBy: "fallback" } });
  });

  it("takes a refusal by the other home's policy as nobody asked, never as a person's denial", async () => {
    // the forwarded request is unproven there: an agent nobody named gets security=deny in that home
    const asked = await startGatehouse({ policy: { defaults: { security: "deny" } } });
    running.push(asked);
    asked.services.broker.attachUi();
    const presenter = createAskViaPresenter({
      target: askViaPaths(asked.t.paths.executorHome, asked.t.env),
      logger: silentLogger,
    });
    const forwarding = await startGatehouse({ presenter });
    running.push(forwarding);
    const result = await (
      await forwarding.client()
    ).request("approval.request", { argv: ["rm", "x"], cwd: "/tmp" });
    expect(result).toMatchObject({ status: "ok", body: { decision: "no-approver", decidedBy: "fallback" } });
    expect(asked.services.broker.list()).toEqual([]);
  });

  it("is what `gatehouse serve --ask-via HOME` uses for its prompts", async () => {
    const asked = await startGatehouse();
    running.push(asked);
    asked.services.broker.attachUi();
    const t = await makeTempHome("gh-via-");
    homes.push(t);
    await writePolicy(t.paths);
    serve = await startServe(t.env, ["--ask-via", asked.t.paths.executorHome]);
    const pending = requestOnce(t.paths, "approval.request", { argv: ["rm", "y"], cwd: "/tmp" });
    const [prompt] = await waitFor(() =>
      asked.services.broker.list().length ? asked.services.broker.list() : null,
    );
    asked.services.broker.decide(prompt!.id, { decision: "deny" });
    expect(await pending).toMatchObject({ status: "ok", body: { decision: "deny", decidedBy: "user" } });
  });
});
