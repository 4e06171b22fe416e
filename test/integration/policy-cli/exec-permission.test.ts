// Which file a PATH search finds is the one the shell runs (src/core/policy/io/exec-permission.ts):
// executability is the kernel's answer, so an ACL that opens a file to the user, or closes it, moves
// Gatehouse's choice exactly as it moves bash's. Each case resolves the name and runs it through bash
// as another user (uid 65534, where ACL entries apply; root's permission check ignores them), and the
// remembered answer is attacked after it is remembered: the next lookup must see the change.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutableResolver } from "../../../src/core/policy/index.js";
import { rememberedExecPermission } from "../../../src/core/policy/io/exec-permission.js";
import { REPO_ROOT } from "../../support/cli.js";
import {
  otherUserUnavailable,
  runAsOtherUser,
  spawnAsOtherUser,
  OTHER_UID,
} from "../../support/other-user.js";
import { waitFor } from "../../support/wait-for.js";

const SETFACL = ["/usr/bin/setfacl", "/bin/setfacl"].find((p) => existsSync(p)) ?? null;
const RESOLVER = path.join(REPO_ROOT, "dist/src/core/policy/io/resolve-executable.js");

let root: string;
beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gh-exec-permission-")));
  await fs.chmod(root, 0o755); // the other user looks up programs here
});
afterAll(async () => fs.rm(root, { recursive: true, force: true }));

/** `dir/tool`, printing `says` when run, owned by root with `mode`. */
async function tool(dir: string, says: string, mode: number): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, "tool");
  await fs.writeFile(file, `#!/bin/sh\necho ${says}\n`);
  await fs.chmod(file, mode);
  return file;
}

function setfacl(spec: string, file: string): void {
  execFileSync(SETFACL!, ["-m", spec, file]);
}

/** A node script run as the other user: resolves `tool` on `pathEnv` with Gatehouse's resolver. */
const RESOLVE_AS_OTHER = `
  const [resolver, pathEnv] = process.argv.slice(1);
  import(resolver).then(({ ExecutableResolver }) => {
    const found = new ExecutableResolver().resolve("tool", {
      cwd: "/", pathEnv, pathExt: undefined, home: "/", platform: "linux",
    });
    process.stdout.write(JSON.stringify(found.resolvedPath));
  });`;

/** What the other user's bash runs for `tool` on `pathEnv`. */
function bashRunsAsOther(pathEnv: string): string {
  const script = `
    const out = require("node:child_process").spawnSync("/bin/bash", ["-c", "tool"], {
      env: { PATH: process.argv[1] }, encoding: "utf8" });
    process.stdout.write(out.stdout.trim());`;
  return runAsOtherUser(script, [pathEnv]);
}

const skipReason =
  otherUserUnavailable ??
  (SETFACL === null ? "needs setfacl (Debian package acl) to give the other user an ACL entry" : null);

describe.skipIf(skipReason !== null)(
  `ACLs move Gatehouse's PATH search as they move bash's (${skipReason ?? "runs"})`,
  () => {
    it("a file only an ACL lets the user run is the one found, and the one bash runs", async () => {
      const first = path.join(root, "opened", "first");
      const second = path.join(root, "opened", "second");
      const opened = await tool(first, "first", 0o750); // root:root, nothing for others …
      setfacl(`u:${OTHER_UID}:rx`, opened); // … but this user may read and run it
      await tool(second, "second", 0o755);
      const pathEnv = `${first}:${second}`;
      expect(bashRunsAsOther(pathEnv)).toBe("first");
      expect(JSON.parse(runAsOtherUser(RESOLVE_AS_OTHER, [RESOLVER, pathEnv]))).toBe(opened);
    });

    it("a file an ACL closes to the user is passed over for the next one, as bash passes it over", async () => {
      const first = path.join(root, "closed", "first");
      const second = path.join(root, "closed", "second");
      const closed = await tool(first, "first", 0o755); // everyone may run it …
      setfacl(`u:${OTHER_UID}:---`, closed); // … but this user
      const next = await tool(second, "second", 0o755);
      const pathEnv = `${first}:${second}`;
      expect(bashRunsAsOther(pathEnv)).toBe("second");
      expect(JSON.parse(runAsOtherUser(RESOLVE_AS_OTHER, [RESOLVER, pathEnv]))).toBe(next);
    });

    it("an ACL closed after the answer was remembered is seen by the next lookup (only ctime changes)", async () => {
      const first = path.join(root, "remembered", "first");
      const second = path.join(root, "remembered", "second");
      const file = await tool(first, "first", 0o750);
      setfacl(`u:${OTHER_UID}:rx`, file);
      const next = await tool(second, "second", 0o755);
      const go = path.join(root, "remembered", "go");
      // One long-lived process as the other user: it resolves until its answer for `file` is remembered
      // (the file's ctime must be 2 s old), says so, waits for `go`, and resolves once more.
      const script = `
      const fs = require("node:fs");
      const [resolver, permission, pathEnv, file, go] = process.argv.slice(1);
      const lookup = (r) => new r.ExecutableResolver().resolve("tool", {
        cwd: "/", pathEnv, pathExt: undefined, home: "/", platform: "linux" }).resolvedPath;
      Promise.all([import(resolver), import(permission)]).then(([r, p]) => {
        const before = lookup(r);
        const tick = setInterval(() => {
          lookup(r);
          if (!p.rememberedExecPermission(file)) return;
          clearInterval(tick);
          process.stdout.write("remembered " + JSON.stringify(before) + "\\n");
          const wait = setInterval(() => {
            if (!fs.existsSync(go)) return;
            clearInterval(wait);
            process.stdout.write("after " + JSON.stringify(lookup(r)) + "\\n");
          }, 20);
        }, 100);
      });`;
      const permission = path.join(REPO_ROOT, "dist/src/core/policy/io/exec-permission.js");
      const child = spawnAsOtherUser(script, [RESOLVER, permission, `${first}:${second}`, file, go]);
      let out = "";
      child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
      try {
        await waitFor(() => out.includes("remembered"), {
          what: "the answer to be remembered",
          timeoutMs: 20_000,
        });
        expect(out).toContain(`remembered ${JSON.stringify(file)}`);
        setfacl(`u:${OTHER_UID}:---`, file); // the mode bits stay as they were: only ctime moves
        await fs.writeFile(go, "");
        await waitFor(() => out.includes("after"), { what: "the lookup after the change" });
        expect(out).toContain(`after ${JSON.stringify(next)}`);
        expect(bashRunsAsOther(`${first}:${second}`)).toBe("second");
      } finally {
        child.kill();
      }
    });
  },
);

describe("a remembered answer is dropped when the file changes", () => {
  it("a program made not executable after its answer was remembered is passed over at the next lookup", async () => {
    const first = path.join(root, "chmod", "first");
    const second = path.join(root, "chmod", "second");
    const file = await tool(first, "first", 0o755);
    const next = await tool(second, "second", 0o755);
    const lookup = () =>
      new ExecutableResolver().resolve("tool", {
        cwd: "/",
        pathEnv: `${first}:${second}`,
        pathExt: undefined,
        home: "/",
        platform: "linux",
      }).resolvedPath;
    await waitFor(() => lookup() === file && rememberedExecPermission(file), {
      what: "the answer to be remembered",
      timeoutMs: 20_000,
    });
    await fs.chmod(file, 0o644);
    expect(lookup()).toBe(next);
    expect(
      spawnSync("/bin/bash", ["-c", "tool"], {
        env: { PATH: `${first}:${second}` },
        encoding: "utf8",
      }).stdout.trim(),
    ).toBe("second");
  });
});
