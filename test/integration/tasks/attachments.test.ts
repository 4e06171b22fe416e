// A task's attachments (issue 31 item 4) through the whole app and the real Claude Code CLI (scripted
// model): downloaded from the backend with the task token into `<workdir>/.wegent/attachments/<task>/
// <subtask>/`, named in the prompt as Wegent's executor names them, with the capability packages'
// hardening: safe file names, no writing through a link an agent planted, failures said in the prompt.
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

let app: TaskApp | undefined;
let api: ScriptedAnthropic | undefined;
afterEach(async () => {
  await app?.close();
  await api?.close();
  app = api = undefined;
});

async function start(): Promise<TaskApp> {
  api = await startScriptedAnthropic(() => ({ text: "Read them." }));
  app = await startTaskApp({ env: { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: "scripted-key" } });
  return app;
}

/** The text of the first user message the model got (what Claude Code made of the task's prompt). */
function promptSeen(): string {
  const request = api!.requests.find((r) => Array.isArray(r.tools) && r.tools.length > 0)!;
  return JSON.stringify(request.messages[0]);
}

describe.skipIf(!HAVE_CLAUDE)("a task's attachments", () => {
  it("are downloaded into the task's folder and named in the prompt; a failed one is said so", async () => {
    const a = await start();
    a.backend.attachments.set(11, Buffer.from("# Notes\nremember the milk\n"));
    a.backend.attachments.set(12, Buffer.from("#!/bin/sh\necho hi\n"));
    a.send(
      taskPayload(601, 6001, {
        prompt: "Summarise [attachment:11] and [attachment:13].",
        attachments: [
          { id: 11, original_filename: "notes.md", mime_type: "text/markdown", file_size: 27 },
          { id: 12, original_filename: "../../evil.sh", mime_type: "text/x-sh" },
          { id: 13, original_filename: "gone.pdf", mime_type: "application/pdf" },
        ],
      }),
    );
    expect((await a.untilTerminal(6001)).at(-1)!.event).toBe("response.completed");
    const dir = path.join(a.services.workdir!.workspaceRoot, "601", ".wegent", "attachments", "601", "6001");
    const notes = path.join(await fs.realpath(dir), "notes.md");
    expect(await fs.readFile(notes, "utf8")).toBe("# Notes\nremember the milk\n");
    expect(await fs.readdir(dir)).toEqual(["evil.sh", "notes.md"]);
    expect(a.backend.attachmentDownloads.sort()).toEqual([11, 12]); // 13 is not on the backend
    const seen = promptSeen();
    expect(seen).toContain(
      `Summarise [Attachment downloaded to: ${notes}] and [Attachment 13 unavailable - download failed].`,
    );
    expect(seen).toContain("The following attachments failed to download and are unavailable:");
    expect(seen).toContain("gone.pdf (Error: Capability package download failed with HTTP 404)");
    expect(seen).toContain(
      `<attachment>\\nAvailable attachments:\\n- notes.md (text/markdown, 27 bytes): ${notes}`,
    );
  });

  it("never writes through a link an agent left in the folder", async () => {
    const a = await start();
    a.backend.attachments.set(21, Buffer.from("payload"));
    const folder = path.join(a.services.workdir!.workspaceRoot, "602");
    const outside = path.join(a.t.home, "outside");
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(folder, ".wegent"));
    a.send(
      taskPayload(602, 6011, {
        prompt: "Use [attachment:21].",
        attachments: [{ id: 21, original_filename: "data.txt" }],
      }),
    );
    expect((await a.untilTerminal(6011)).at(-1)!.event).toBe("response.completed");
    expect(await fs.readdir(outside)).toEqual([]);
    expect(existsSync(path.join(outside, "attachments"))).toBe(false);
    expect(promptSeen()).toContain("[Attachment 21 unavailable - download failed]");
    expect(promptSeen()).toContain("attachments are never written through a link");
  });
});
