// workdir.md §3: labels, text and real-path entries, NFC and case-insensitive matching, the rule
// for E except W, and the Windows drive roots and administrative shares (through path.win32).
import { describe, expect, it } from "vitest";
import {
  buildProtectedFolders,
  protectedFolderEntries,
  protectionOf,
  type ProtectedFoldersInput,
} from "../../../src/core/workdir/io/protected-folders.js";

const noRealpath = async (p: string): Promise<string> => {
  throw Object.assign(new Error(`no ${p}`), { code: "ENOENT" });
};

const posix: ProtectedFoldersInput = {
  home: "/home/alice",
  executorHome: "/home/alice/.wegent-executor",
  claudeHome: "/home/alice/.claude",
  codexHome: "/opt/codex-home",
  env: {},
  platform: "linux",
};

const windows: ProtectedFoldersInput = {
  home: "C:\\Users\\alice",
  executorHome: "C:\\Users\\alice\\.wegent-executor",
  claudeHome: "C:\\Users\\alice\\.claude",
  codexHome: "C:\\Users\\alice\\.codex",
  env: { ProgramFiles: "D:\\Apps", SYSTEMROOT: "C:\\Windows" },
  platform: "win32",
};

describe("protected folders on POSIX", async () => {
  const set = await buildProtectedFolders(
    { ...posix, workspace: ["/home/alice/.wegent-executor/workspace"] },
    noRealpath,
  );
  const cases: Array<[string, string | null]> = [
    ["/", "the file system root"],
    ["/home/alice", "your home folder"],
    ["/home/alice/", "your home folder"],
    ["/home", "the folder that holds all home folders"],
    ["/home/bob", null],
    ["/home/alice/.ssh", "a credentials folder"],
    ["/home/alice/.SSH/keys", "a credentials folder"],
    ["/home/alice/.config/gcloud/x", "a credentials folder"],
    ["/home/alice/.config", null],
    ["/home/alice/Library/Keychains", "a credentials folder"],
    ["/home/alice/.claude/hooks", "an agent configuration folder"],
    ["/home/alice/.codex", "an agent configuration folder"],
    ["/opt/codex-home/x", "an agent configuration folder"],
    ["/usr/local", "a system folder"],
    ["/private/etc/hosts", "a system folder"],
    ["/System/Volumes/Data/Users/alice/Projects/foo", "a system folder"],
    ["/home/alice/.wegent-executor", "Gatehouse's own data"],
    ["/home/alice/.wegent-executor/capabilities", "Gatehouse's own data"],
    ["/home/alice/.wegent-executor/workspace", null],
    ["/home/alice/.wegent-executor/workspace/t1", null],
    ["/home/alice/.wegent-executor/workspace-evil", "Gatehouse's own data"],
    ["/home/alice/Projects", null],
    ["/etcetera", null],
  ];
  for (const [p, label] of cases) {
    it(`${p} → ${label ?? "not protected"}`, () => {
      expect(protectionOf(p, set)).toBe(label);
    });
  }

  it("matches in NFC whatever the request's Unicode form", async () => {
    const nfd = await buildProtectedFolders(
      {
        ...posix,
        home: "/home/jose\u0301",
        executorHome: "/home/jose\u0301/.wegent-executor",
        workspace: [],
      },
      noRealpath,
    );
    expect(protectionOf("/home/jos\u00e9/.ssh", nfd)).toBe("a credentials folder");
  });

  it("adds the real path of entries that exist elsewhere (macOS /etc → /private/etc style)", async () => {
    const links: Record<string, string> = { "/home/alice/.aws": "/data/aws-creds" };
    const set2 = await buildProtectedFolders({ ...posix, workspace: [] }, async (p) => {
      if (links[p]) return links[p];
      throw Object.assign(new Error("missing"), { code: "ENOENT" });
    });
    expect(protectionOf("/data/aws-creds/config", set2)).toBe("a credentials folder");
  });

  it("protects E whole when W is E itself or outside E", async () => {
    const wIsE = await buildProtectedFolders(
      { ...posix, workspace: ["/home/alice/.wegent-executor"] },
      noRealpath,
    );
    expect(protectionOf("/home/alice/.wegent-executor", wIsE)).toBe("Gatehouse's own data");
    expect(protectionOf("/home/alice/.wegent-executor/exec-approvals.json", wIsE)).toBe(
      "Gatehouse's own data",
    );
    const wContainsE = await buildProtectedFolders({ ...posix, workspace: ["/home/alice"] }, noRealpath);
    expect(protectionOf("/home/alice/.wegent-executor/workspace", wContainsE)).toBe("Gatehouse's own data");
  });

  it("lists no Windows entries on POSIX", () => {
    expect(protectedFolderEntries(posix).some((e) => e.path.includes("\\"))).toBe(false);
  });
});

describe("the exemption of W follows W's volume; protection folds wider than any volume", () => {
  const W = "/home/alice/.wegent-executor/workspace";
  const exists = async (p: string): Promise<string> => {
    if (p === W) return W;
    throw Object.assign(new Error("missing"), { code: "ENOENT" });
  };
  // A volume seen through dev+ino: case-sensitive volumes give each spelling its own inode.
  const volume =
    (caseInsensitive: boolean) =>
    async (p: string): Promise<{ dev: number; ino: number }> => {
      const key = caseInsensitive ? p.toLowerCase() : p;
      if (key !== (caseInsensitive ? W.toLowerCase() : W))
        throw Object.assign(new Error("missing"), { code: "ENOENT" });
      return { dev: 1, ino: caseInsensitive ? 43 : 42 }; // two volumes: the probe's memory is per identity
    };

  it("issue 30 item 5: on a case-sensitive volume E/WORKSPACE/x is Gatehouse's own data, not W", async () => {
    const set = await buildProtectedFolders({ ...posix, workspace: [W] }, exists, volume(false));
    expect(protectionOf("/home/alice/.wegent-executor/WORKSPACE/x", set)).toBe("Gatehouse's own data");
    expect(protectionOf("/home/alice/.wegent-executor/Workspace", set)).toBe("Gatehouse's own data");
    expect(protectionOf(`${W}/x`, set)).toBeNull();
  });

  it("on a case-insensitive volume E/WORKSPACE/x is W itself, so it stays exempt", async () => {
    const set = await buildProtectedFolders({ ...posix, workspace: [W] }, exists, volume(true));
    expect(protectionOf("/home/alice/.wegent-executor/WORKSPACE/x", set)).toBeNull();
    expect(protectionOf("/home/alice/.WEGENT-EXECUTOR/exec-approvals.json", set)).toBe(
      "Gatehouse's own data",
    );
  });

  it("a W that does not exist yet exempts only its exact spelling", async () => {
    const set = await buildProtectedFolders({ ...posix, workspace: [W] }, noRealpath);
    expect(protectionOf("/home/alice/.wegent-executor/WORKSPACE", set)).toBe("Gatehouse's own data");
    expect(protectionOf(W, set)).toBeNull();
  });

  it.each([
    ["/home/alice/.\u017f\u017fh/id_rsa", "a credentials folder"], // long s folds to s
    ["/home/alice/.\u212aube/config", "a credentials folder"], // Kelvin sign folds to k
    ["/home/alice/.wegent-executor/\uff43\uff41\uff50", "Gatehouse's own data"], // fullwidth letters
    ["/home/alice/.SSH", "a credentials folder"],
  ])("%s → %s", async (p, label) => {
    const set = await buildProtectedFolders({ ...posix, workspace: [W] }, noRealpath);
    expect(protectionOf(p, set)).toBe(label);
  });
});

describe("protected folders on Windows (path.win32)", async () => {
  const set = await buildProtectedFolders(
    { ...windows, workspace: ["C:\\Users\\alice\\.wegent-executor\\workspace"] },
    noRealpath,
  );
  const cases: Array<[string, string | null]> = [
    ["C:\\", "the file system root"],
    ["d:\\", "the file system root"],
    ["D:\\code", null],
    ["\\\\localhost\\C$", "a system folder"],
    ["\\\\localhost\\c$\\code", "a system folder"],
    ["\\\\server\\ADMIN$\\System32", "a system folder"],
    ["\\\\localhost\\gh-test\\code", null],
    ["C:\\Users", "the folder that holds all home folders"],
    ["c:\\users\\ALICE", "your home folder"],
    ["C:\\Users\\alice\\AppData\\Roaming", "an application data folder"],
    ["C:\\Users\\alice\\.ssh", "a credentials folder"],
    ["C:\\Windows\\System32", "a system folder"],
    ["c:\\program files\\App", "a system folder"],
    ["D:\\Apps\\Tool", "a system folder"],
    ["C:\\Program Files (x86)\\x", "a system folder"],
    ["C:\\ProgramData\\x", "a system folder"],
    ["C:\\Users\\alice\\.wegent-executor\\capabilities", "Gatehouse's own data"],
    ["C:\\Users\\alice\\.wegent-executor\\WORKSPACE\\t1", null],
    ["C:\\Users\\alice\\Projects\\foo", null],
  ];
  for (const [p, label] of cases) {
    it(`${p} → ${label ?? "not protected"}`, () => {
      expect(protectionOf(p, set)).toBe(label);
    });
  }
});
