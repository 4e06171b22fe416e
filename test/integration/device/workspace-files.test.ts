// The web UI's file browser and editor against a whole app (the composition root `gatehouse serve`
// builds) and the test backend sending `device:execute_command` with `workspace_*` keys as Wegent's
// backend does (its payload, its `json` post-processor). Mirrors Wegent's workspace_files.rs cases —
// tree, read, chunk, write, stale revision, size limit, no roots — plus Gatehouse's own: the backend's
// roots never reach past Gatehouse's, and writes follow the file gate.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_CHUNK_BYTES } from "../../../src/core/workspace-files.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { DEVICE_ID, startTaskApp, type TaskApp } from "../tasks/harness.js";

const sha = (text: string | Buffer) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

let t: TempHome;
let app: TaskApp;
let project: string;
let outside: string;

beforeAll(async () => {
  t = await makeTempHome("gh-wsfiles-");
  project = path.join(t.home, "Projects", "app");
  outside = path.join(t.home, "Outside");
  await fs.mkdir(path.join(project, "src"), { recursive: true });
  await fs.mkdir(path.join(project, ".git"), { recursive: true });
  await fs.mkdir(outside, { recursive: true });
  await fs.mkdir(path.join(t.home, ".ssh"), { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(project, "README.md"), "hello");
  await fs.writeFile(path.join(project, "b.txt"), "b");
  await fs.writeFile(path.join(project, "A.txt"), "a");
  await fs.writeFile(path.join(project, ".git", "config"), "[core]\n");
  await fs.writeFile(path.join(outside, "secret.txt"), "outside secret");
  await fs.writeFile(path.join(t.home, ".ssh", "id_ed25519"), "private key");
  await fs.symlink(path.join(outside, "secret.txt"), path.join(project, "leak.txt"));
  await fs.symlink(path.join(t.home, ".ssh"), path.join(project, "keys"));
  app = await startTaskApp({ t, env: { LOCAL_WORKDIR_ALLOWED_ROOTS: path.join(t.home, "Projects") } });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await t?.cleanup();
});

function command(key: string, options: Parameters<TaskApp["backend"]["workspaceCommand"]>[2]) {
  return app.backend.workspaceCommand(DEVICE_ID, key, { roots: [path.join(t.home, "Projects")], ...options });
}

describe("workspace file commands", () => {
  it("lists a folder with directories first and names sorted without case, as real paths", async () => {
    const result = await command("workspace_tree", { path: project });
    expect(result.success).toBe(true);
    expect(result.exit_code).toBe(0);
    const stdout = result.stdout as { path: string; entries: Array<Record<string, unknown>> };
    expect(stdout.path).toBe(project);
    // directories first, then by lower-cased name; links are not followed (`keys` is a link to a folder)
    expect(stdout.entries.map((e) => e.name)).toEqual([
      ".git",
      "src",
      "A.txt",
      "b.txt",
      "keys",
      "leak.txt",
      "README.md",
    ]);
    const readme = stdout.entries.find((e) => e.name === "README.md")!;
    expect(readme).toMatchObject({ path: path.join(project, "README.md"), is_directory: false, size: 5 });
    expect(String(readme.modified_at)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    // a link is listed as what it is (not followed)
    expect(stdout.entries.find((e) => e.name === "keys")).toMatchObject({ is_directory: false });
  });

  it("reads a text file with its sha256 revision, editable", async () => {
    const result = await command("workspace_read_text_file", { path: project, args: ["README.md"] });
    expect(result.success).toBe(true);
    expect(result.stdout).toMatchObject({
      success: true,
      path: path.join(project, "README.md"),
      name: "README.md",
      content: "hello",
      editable: true,
      revision: sha("hello"),
      truncated: false,
      size: 5,
    });
  });

  it("reads the first 256 KiB of a larger file, truncated and not editable", async () => {
    await fs.writeFile(path.join(project, "big.log"), "x".repeat(256 * 1024 + 10));
    const result = await command("workspace_read_text_file", { path: project, args: ["big.log"] });
    const stdout = result.stdout as Record<string, unknown>;
    expect(stdout).toMatchObject({ truncated: true, editable: false, size: 256 * 1024 + 10 });
    expect((stdout.content as string).length).toBe(256 * 1024);
  });

  it("keeps a text file of control characters inside one backend message", async () => {
    // 256 KiB of \u0001 is 1.5 MB of JSON: the ack must still fit the backend's 1,000,000 bytes
    await fs.writeFile(path.join(project, "ctl.bin"), Buffer.alloc(256 * 1024, 1));
    const result = await command("workspace_read_text_file", { path: project, args: ["ctl.bin"] });
    expect(result.success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(1_000_000);
    expect(result.stdout).toMatchObject({ truncated: true, editable: false });
  });

  it("reads a file in chunks that fit the backend's message limit and end with eof", async () => {
    const bytes = Buffer.alloc(MAX_CHUNK_BYTES + 1000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 256;
    await fs.writeFile(path.join(project, "blob.bin"), bytes);
    const first = await command("workspace_read_file_chunk", { path: project, args: ["blob.bin", "0"] });
    expect(first.success).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThan(1_000_000);
    const one = first.stdout as Record<string, unknown>;
    expect(one).toMatchObject({ name: "blob.bin", offset: 0, eof: false, size: bytes.length });
    const got1 = Buffer.from(one.content_base64 as string, "base64");
    expect(got1.length).toBe(MAX_CHUNK_BYTES);
    const second = await command("workspace_read_file_chunk", {
      path: project,
      args: ["blob.bin", String(got1.length)],
    });
    const two = second.stdout as Record<string, unknown>;
    expect(two).toMatchObject({ offset: MAX_CHUNK_BYTES, eof: true });
    const got2 = Buffer.from(two.content_base64 as string, "base64");
    expect(Buffer.concat([got1, got2]).equals(bytes)).toBe(true);
  });

  it("refuses a chunk offset that is not a non-negative integer", async () => {
    const result = await command("workspace_read_file_chunk", { path: project, args: ["blob.bin", "-1"] });
    expect(result).toMatchObject({
      success: false,
      exit_code: 1,
      error: "File offset must be a non-negative integer",
    });
  });

  it("writes a text file when the revision matches, and the audit log says so", async () => {
    await fs.writeFile(path.join(project, "notes.md"), "hello");
    const result = await command("workspace_write_text_file", {
      path: project,
      args: ["notes.md", sha("hello")],
      stdin: "updated",
    });
    expect(result.success).toBe(true);
    expect(result.stdout).toMatchObject({ content: "updated", editable: true, revision: sha("updated") });
    expect(await fs.readFile(path.join(project, "notes.md"), "utf8")).toBe("updated");
    await app.services.audit.close();
    const audit = await fs.readFile(t.paths.audit, "utf8");
    expect(audit).toContain(`"command":"workspace_write_text_file ${path.join(project, "notes.md")}"`);
  });

  it("refuses a stale revision without overwriting", async () => {
    await fs.writeFile(path.join(project, "notes.md"), "changed");
    const result = await command("workspace_write_text_file", {
      path: project,
      args: ["notes.md", "sha256:stale"],
      stdin: "updated",
    });
    expect(result).toMatchObject({ success: false, error: "Workspace file has changed on disk" });
    expect(await fs.readFile(path.join(project, "notes.md"), "utf8")).toBe("changed");
  });

  it("refuses content over 256 KiB and a write without content", async () => {
    await fs.writeFile(path.join(project, "notes.md"), "hello");
    const big = await command("workspace_write_text_file", {
      path: project,
      args: ["notes.md", sha("hello")],
      stdin: "x".repeat(256 * 1024 + 1),
    });
    expect(big).toMatchObject({ success: false, error: "File content exceeds 256 KiB" });
    const none = await command("workspace_write_text_file", {
      path: project,
      args: ["notes.md", sha("hello")],
    });
    expect(none).toMatchObject({ success: false, error: "File content is required" });
    expect(await fs.readFile(path.join(project, "notes.md"), "utf8")).toBe("hello");
  });

  it("fails closed when the backend sends no roots", async () => {
    const result = await app.backend.workspaceCommand(DEVICE_ID, "workspace_tree", { path: project });
    expect(result).toMatchObject({
      success: false,
      error: "Workspace path is outside allowed workspace roots",
    });
  });

  it("refuses a folder outside the backend's roots", async () => {
    const result = await command("workspace_tree", { path: project, roots: [path.join(project, "src")] });
    expect(result).toMatchObject({
      success: false,
      error: "Workspace path is outside allowed workspace roots",
    });
  });

  it("never reaches past Gatehouse's own roots, whatever the backend allows", async () => {
    const result = await command("workspace_read_text_file", {
      path: outside,
      args: ["secret.txt"],
      roots: [t.home],
    });
    expect(result.success).toBe(false);
    expect(String(result.error)).toMatch(
      /^Workspace path is outside allowed workspace roots\. .*not inside an allowed folder/,
    );
    expect(JSON.stringify(result)).not.toContain("outside secret");
    const keys = await command("workspace_tree", { path: path.join(t.home, ".ssh"), roots: [t.home] });
    expect(keys.success).toBe(false);
    expect(String(keys.error)).toContain("protected folder");
  });

  it("refuses files that lead out of the folder: .., a link out, a link into a credentials folder", async () => {
    for (const name of ["../../Outside/secret.txt", "leak.txt", "keys/id_ed25519"]) {
      const result = await command("workspace_read_text_file", { path: project, args: [name] });
      expect(result.success, name).toBe(false);
      expect(String(result.error), name).toMatch(/^File path is outside workspace/);
      expect(JSON.stringify(result)).not.toMatch(/outside secret|private key/);
    }
  });

  it("refuses writes outside the folder and where files make later commands run code", async () => {
    const before = await fs.readFile(path.join(outside, "secret.txt"), "utf8");
    const leak = await command("workspace_write_text_file", {
      path: project,
      args: ["leak.txt", sha(before)],
      stdin: "pwned",
    });
    expect(leak.success).toBe(false);
    expect(await fs.readFile(path.join(outside, "secret.txt"), "utf8")).toBe(before);
    const hook = await command("workspace_write_text_file", {
      path: project,
      args: [".git/config", sha("[core]\n")],
      stdin: "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    });
    expect(hook).toMatchObject({ success: false });
    expect(String(hook.error)).toContain("Gatehouse does not let the backend write there");
    expect(await fs.readFile(path.join(project, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("says a missing file does not exist and a missing folder is invalid", async () => {
    const file = await command("workspace_read_text_file", { path: project, args: ["nope.md"] });
    expect(file).toMatchObject({
      success: false,
      error: "Failed to resolve workspace file: No such file or directory (os error 2)",
    });
    const folder = await command("workspace_tree", { path: path.join(project, "nope") });
    expect(folder).toMatchObject({
      success: false,
      error: "Invalid workspace path: No such file or directory (os error 2)",
    });
    const dir = await command("workspace_read_text_file", { path: project, args: ["src"] });
    expect(dir).toMatchObject({ success: false, error: "File does not exist" });
  });
});
