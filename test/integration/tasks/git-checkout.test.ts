// Git checkout for tasks (issue 31 item 3) through the whole app and the real Claude Code CLI (scripted
// model): a `task:execute` naming `git_url` clones into the task's folder when it is empty, uses it when
// it is already a repository, and ends with an error event when it is neither (Wegent's
// git_workspace.rs). The clone is decided by the exec policy as the command it is, and git's `ext::` and
// `fd::` transports, option injection and local repositories outside the allowed roots are refused.
//
// git is a wrapper that drops to uid 65534 before /usr/bin/git runs, and every folder it writes is owned
// by that user: whatever a test (or an attack) makes git do runs unprivileged.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalsStore } from "../../../src/core/approvals/index.js";
import { startScriptedAnthropic, type ScriptedAnthropic } from "../../support/scripted-anthropic.js";
import { OTHER_UID, otherUserUnavailable } from "../../support/other-user.js";
import { makeTempHome, type TempHome } from "../../support/temp-home.js";
import { AGENT_BIN_DIRS } from "../../support/agent-clis.js";
import { dataOf, HAVE_CLAUDE, startTaskApp, taskPayload, type TaskApp } from "./harness.js";

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const GIT = ["/usr/bin/git", "/bin/git"].find((p) => existsSync(p));
const AS_NOBODY = [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, "--clear-groups", "--"];

let t: TempHome;
let app: TaskApp;
let api: ScriptedAnthropic;
let projects: string;
let source: string;
let gitWrapper: string;
let marker: string;

function nobody(argv: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync(SETPRIV!, [...AS_NOBODY, ...argv], {
    cwd,
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: projects, ...env },
  });
}

async function nobodyFolder(p: string): Promise<string> {
  await fs.mkdir(p, { recursive: true });
  await fs.chown(p, OTHER_UID, OTHER_UID);
  return p;
}

async function setPolicy(allowGit: boolean): Promise<void> {
  const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
  await store.ensure();
  await store.setAgentSettings("defaults", { security: "allowlist", ask: "on-miss", askFallback: "deny" });
  await store.update((file) => ({
    ...file,
    agents: Object.fromEntries(Object.entries(file.agents).map(([id, a]) => [id, { ...a, allowlist: [] }])),
  }));
  if (allowGit) await store.addEntry("backend", { pattern: gitWrapper });
}

async function errorOf(subtask: number): Promise<string> {
  const events = await app.untilTerminal(subtask);
  const last = events.at(-1)!;
  expect(last.event).toBe("error");
  return String(dataOf(last).message);
}

const haveAll = otherUserUnavailable === null && HAVE_CLAUDE && GIT !== undefined;

describe.skipIf(!haveAll)("git checkout for a task", () => {
  beforeAll(async () => {
    t = await makeTempHome("gh-git-");
    await fs.chmod(t.home, 0o711);
    projects = path.join(t.home, "Projects");
    await fs.mkdir(projects, { recursive: true });
    await fs.chmod(projects, 0o755);
    marker = path.join(await nobodyFolder(path.join(t.home, "markers")), "pwned");
    // the repository to clone, made by the unprivileged user
    source = await nobodyFolder(path.join(projects, "source"));
    nobody([GIT!, "init", "-q", "-b", "main"], source);
    await fs.writeFile(path.join(source, "README.md"), "from the source repository\n");
    await fs.chown(path.join(source, "README.md"), OTHER_UID, OTHER_UID);
    const id = {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@x",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@x",
    };
    nobody([GIT!, "add", "README.md"], source, id);
    nobody([GIT!, "commit", "-q", "-m", "first"], source, id);
    const bin = path.join(t.home, "bin");
    await fs.mkdir(bin, { mode: 0o755 });
    gitWrapper = path.join(bin, "git");
    await fs.writeFile(gitWrapper, `#!/bin/sh\nexec ${SETPRIV} ${AS_NOBODY.join(" ")} ${GIT} "$@"\n`, {
      mode: 0o755,
    });
    api = await startScriptedAnthropic(() => ({ text: "Looked at the repository." }));
    app = await startTaskApp({
      t,
      env: {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: "scripted-key",
        LOCAL_WORKDIR_ALLOWED_ROOTS: projects,
        PATH: [bin, ...AGENT_BIN_DIRS, process.env.PATH ?? "/usr/bin:/bin"].join(path.delimiter),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await api?.close();
    await t?.cleanup();
  });

  it("clones into an empty folder, then uses the repository as it is on the next turn", async () => {
    await setPolicy(true);
    const folder = await nobodyFolder(path.join(projects, "app"));
    app.send(taskPayload(301, 3001, { workdir: folder, git_url: `file://${source}`, branch_name: "main" }));
    const events = await app.untilTerminal(3001, 120_000);
    expect(events.at(-1)!.event).toBe("response.completed");
    expect(await fs.readFile(path.join(folder, "README.md"), "utf8")).toBe("from the source repository\n");
    expect(nobody([GIT!, "-C", folder, "rev-parse", "--abbrev-ref", "HEAD"], folder).trim()).toBe("main");
    await fs.writeFile(path.join(folder, "local-change.txt"), "kept");
    app.send(taskPayload(301, 3002, { workdir: folder, git_url: `file://${source}`, branch_name: "main" }));
    expect((await app.untilTerminal(3002, 120_000)).at(-1)!.event).toBe("response.completed");
    expect(await fs.readFile(path.join(folder, "local-change.txt"), "utf8")).toBe("kept");
    await app.services.audit.close();
    const clones = (await fs.readFile(t.paths.audit, "utf8"))
      .split("\n")
      .filter((l) => l.includes('"commandKey":"git_clone"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(clones.map((c) => [c.event, c.decidedBy])).toEqual([
      ["decision", expect.stringMatching(/^rule:/)],
      ["run", expect.stringMatching(/^rule:/)],
    ]);
  });

  it("ends with an error event for a folder that is neither empty nor a repository", async () => {
    await setPolicy(true);
    const folder = await nobodyFolder(path.join(projects, "notes"));
    await fs.writeFile(path.join(folder, "todo.txt"), "mine");
    app.send(taskPayload(302, 3011, { workdir: folder, git_url: `file://${source}` }));
    expect(await errorOf(3011)).toBe(
      `git workspace path is not empty and is not a git repository: ${folder}`,
    );
    expect(await fs.readdir(folder)).toEqual(["todo.txt"]);
  });

  it("asks the exec policy: with no entry for git and nobody to ask, nothing is cloned", async () => {
    await setPolicy(false);
    const folder = await nobodyFolder(path.join(projects, "unasked"));
    app.send(taskPayload(303, 3021, { workdir: folder, git_url: `file://${source}` }));
    expect(await errorOf(3021)).toMatch(/^git clone refused for .*: not allowed by Gatehouse \(no-approver/);
    expect(await fs.readdir(folder)).toEqual([]);
  });

  it("the ext:: attack is real for git itself, and Gatehouse's own git environment alone already stops it", async () => {
    const dest = await nobodyFolder(path.join(t.home, "markers", "dest"));
    const url = `ext::sh -c touch% ${marker}`;
    // Gatehouse's variables: even a git config that allows ext:: cannot use it
    expect(() =>
      nobody([GIT!, "-c", "protocol.ext.allow=always", "clone", url, path.join(dest, "a")], dest, {
        GIT_ALLOW_PROTOCOL: "https:ssh:git:file",
      }),
    ).toThrow();
    expect(existsSync(marker)).toBe(false);
    // without them, the same clone runs the command (as uid 65534)
    expect(() =>
      nobody([GIT!, "-c", "protocol.ext.allow=always", "clone", url, path.join(dest, "b")], dest),
    ).toThrow();
    expect(existsSync(marker)).toBe(true);
    await fs.rm(marker);
  });

  it("refuses ext::, fd::, option injection and foreign transports before anything runs, even under security=full", async () => {
    const store = new ApprovalsStore({ path: t.paths.approvals, defaultSocketPath: t.paths.defaultSocket });
    await store.setAgentSettings("defaults", { security: "full", ask: "off", askFallback: "deny" });
    const folder = await nobodyFolder(path.join(projects, "attacked"));
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ git_url: `ext::sh -c touch% ${marker}` }, /git's ext:: transport runs programs/],
      [{ git_url: "fd::17" }, /git's fd:: transport/],
      [{ git_url: `--upload-pack=touch ${marker}` }, /starts with -/],
      [
        { git_url: `file://${source}`, branch_name: `--upload-pack=touch ${marker}` },
        /branch "--upload-pack/,
      ],
      [{ git_url: `ssh://-oProxyCommand=touch%20${marker}/x` }, /host is empty or starts with -/],
      [{ git_url: "http://example.com/repo.git" }, /http:\/\/ is not one of https, ssh, git and file/],
      [{ git_url: "file:///etc" }, /a local repository must be in a folder Gatehouse allows/],
    ];
    let subtask = 3031;
    for (const [fields, expected] of cases) {
      app.send(taskPayload(304, subtask, { workdir: folder, ...fields }));
      expect(await errorOf(subtask), JSON.stringify(fields)).toMatch(expected);
      subtask += 1;
    }
    expect(existsSync(marker)).toBe(false);
    expect(await fs.readdir(folder)).toEqual([]);
  });

  it("keeps a URL's password off argv, out of the audit log and out of the error", async () => {
    await setPolicy(true);
    const folder = await nobodyFolder(path.join(projects, "private"));
    app.send(
      taskPayload(305, 3041, { workdir: folder, git_url: "https://alice:s3cret-pw@127.0.0.1:9/repo.git" }),
    );
    const message = await errorOf(3041);
    expect(message).toMatch(/^git clone failed for /);
    expect(message).not.toContain("s3cret-pw");
    await app.services.audit.close();
    const audit = await fs.readFile(t.paths.audit, "utf8");
    expect(audit).toContain("https://127.0.0.1:9/repo.git");
    expect(audit).not.toContain("s3cret-pw");
  });
});
