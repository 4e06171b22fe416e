// The approvals file on disk (exec-policy.md "The approvals file"). Reads never write; every change is a
// locked read-modify-write through src/core/store, so the UI and CLI never lose each other's updates.
// An invalid file is reported and left exactly as it is.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { parse } from "zod/mini";
import {
  formatJson,
  InvalidFileError,
  loadJsonFile,
  parseJsonText,
  readFileBytesSync,
  removeLeftoverTempsOf,
  watchFile,
  withFileLock,
  writeFileAtomic,
  type FileWatch,
} from "../../store/index.js";
import { checkTrustedFile, type TrustProblem } from "../../io/trust.js";
import { clockOffset, clockUnsetSince, settledBefore } from "../../io/racily-clean.js";
import type { AppPaths } from "../../paths.js";
import { allowAlwaysProblem } from "../entry-pattern.js";
import {
  ApprovalsFileSchema,
  AskFallbackSchema,
  AskSchema,
  PRESETS,
  presetChoices,
  SecuritySchema,
  type AgentSettings,
  type AllowlistEntry,
  type ApprovalsFile,
  type Elevation,
  type PolicySettings,
  type PresetName,
} from "../schema.js";
import { AllowlistEntryError, validateEntry, type NewAllowlistEntry } from "../validate-entry.js";

export type ApprovalsState =
  | { status: "ok"; path: string; file: ApprovalsFile }
  | { status: "missing"; path: string }
  | { status: "invalid"; path: string; error: string };

export interface ApprovalsStoreOptions {
  path: string;
  /** Written into a new file's `socket.path`. */
  defaultSocketPath: string;
  now?: () => number;
  /**
   * A long-running service's store: watch the file's folder and answer `load()` from memory while
   * nothing changed there (at most 1 s per look, core/store/file-watch.ts), instead of two stats per
   * load. This store's own writes drop the memory at once. Call `stopWatching()` when done.
   */
  watch?: boolean;
}

/** What `saveAllowAlways` receives: a proposed entry (policy's ProposedEntry), possibly edited by the person. */
export interface AllowAlwaysEntry {
  pattern: string;
  argPattern?: string;
  cwd?: string;
  /** Narrowed by the person: stops covering then (epoch ms) / after this many runs. */
  expiresAt?: number;
  usesLeft?: number;
  /** The segment it was proposed for (ignored here). */
  segment?: number;
}

/** `setAgentSettings(…, "defaults", …)` edits `defaults` instead of an agent. */
export const DEFAULTS_AGENT_ID = "defaults";

export function newSocketToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * A fresh entry id: 8 base64url characters, never starting with "-" (one in 64 did, and a person's
 * `gatehouse allowlist remove -hx3…` then read as an option; the loop of issue 30 found it).
 */
export function newEntryId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = randomBytes(6).toString("base64url");
    if (!id.startsWith("-") && !taken.has(id)) return id;
  }
}

function allEntryIds(file: ApprovalsFile): Set<string> {
  const ids = new Set<string>();
  for (const agent of Object.values(file.agents)) for (const e of agent.allowlist ?? []) ids.add(e.id);
  return ids;
}

function invalidMessage(file: string, detail: string): string {
  return new InvalidFileError(file, detail).message;
}

/**
 * The approvals file (or a folder it lives in) can be written by someone else: it is treated like an
 * invalid file — reported, never rewritten, and every decision is deny until it is fixed.
 */
export class UntrustedApprovalsError extends InvalidFileError {
  constructor(file: string, problem: TrustProblem) {
    super(file, problem.message);
    this.message = problem.message;
    this.name = "UntrustedApprovalsError";
  }
}

/** Keeps only the fields a new entry may set (unknown keys from callers are not written). */
function entryFields(entry: NewAllowlistEntry): NewAllowlistEntry {
  const out: NewAllowlistEntry = { pattern: entry.pattern };
  if (entry.argPattern !== undefined) out.argPattern = entry.argPattern;
  if (entry.cwd !== undefined) out.cwd = entry.cwd;
  if (entry.expiresAt !== undefined) out.expiresAt = entry.expiresAt;
  if (entry.usesLeft !== undefined) out.usesLeft = entry.usesLeft;
  if (entry.source !== undefined) out.source = entry.source;
  return out;
}

/** The file's identity as one `stat` sees it, and its latest time stamp. */
interface FileIdentity {
  /** Device, inode, size, mtime and ctime (ns), mode, owner and group: a change by any writer moves one… */
  key: string;
  /** …unless it lands within the time stamps' granularity of this one (milliseconds): "racily clean". */
  changedMs: number;
}

/**
 * The last state read or written, for the identity the file had then. `bytes` are the file's bytes it
 * stands for (null when they were not read: an untrusted file). While the identity is racily clean
 * (`settledClock` null), an unchanged identity proves nothing and each load compares the bytes; once
 * a look finds the identity older than GRANULARITY_MS, any later change must carry a newer time stamp
 * and the identity alone answers (until the wall clock is set: `settledClock` is its offset then).
 */
interface CachedState {
  key: string;
  state: ApprovalsState;
  bytes: Buffer | null;
  settledClock: number | null;
}

/** The approvals store of an app's home (what every command that reads or edits the policy opens). */
export function approvalsStoreAt(paths: Pick<AppPaths, "approvals" | "defaultSocket">): ApprovalsStore {
  return new ApprovalsStore({ path: paths.approvals, defaultSocketPath: paths.defaultSocket });
}

export class ApprovalsStore {
  readonly path: string;
  private readonly defaultSocketPath: string;
  private readonly now: () => number;
  /** Last state read or written, so an unchanged file gives the same object (matcher caches key on it). */
  private cached: CachedState | null = null;
  private readonly watch: FileWatch | null;
  private readonly writeListeners = new Set<() => void>();
  private readCount = 0;
  /** The state and bytes of a write of this store that is landing. */
  private writing: { state: ApprovalsState; bytes: Buffer } | null = null;

  constructor(options: ApprovalsStoreOptions) {
    this.path = options.path;
    this.defaultSocketPath = options.defaultSocketPath;
    this.now = options.now ?? Date.now;
    this.watch = options.watch ? watchFile(options.path) : null;
  }

  stopWatching(): void {
    this.watch?.close();
  }

  /** Calls `listener` after each write of this store (before the writing call returns); returns the unsubscribe. */
  onWrite(listener: () => void): () => void {
    this.writeListeners.add(listener);
    return () => this.writeListeners.delete(listener);
  }

  /** How many times this store has read and validated the file (answers from memory do not count). */
  get reads(): number {
    return this.readCount;
  }

  private wrote(): void {
    for (const listener of this.writeListeners) listener();
  }

  /** Reads the file. Never writes, never creates it. */
  async load(): Promise<ApprovalsState> {
    // Nothing happened in the folder since the last load: the same state (trust checked when it was read).
    if (this.watch && this.cached && !this.watch.changed()) return this.cached.state;
    const lookedAt = Date.now();
    const before = this.identity();
    const cached = before !== null && this.cached?.key === before.key ? this.cached : null;
    if (cached?.settledClock != null && clockUnsetSince(cached.settledClock)) return cached.state;
    // Racily clean, or a write of this store landing: only the same bytes prove the file is that state
    // (another writer's same-size rewrite in the same clock tick, or a rename over it reusing the inode
    // number, leaves the identity as it was). A file this store has just written is trust-checked as
    // every new file is; what it read and checked before keeps its check, as the identity allows.
    const expected = cached ?? (before !== null ? this.writing : null);
    if (before !== null && expected?.bytes) {
      const now = readFileBytesSync(this.path);
      if (
        now.status === "ok" &&
        now.bytes.equals(expected.bytes) &&
        (cached || !checkTrustedFile(this.path))
      ) {
        const after = this.identity();
        this.cached =
          after?.key === before.key
            ? {
                key: before.key,
                state: expected.state,
                bytes: expected.bytes,
                settledClock: settledClock(before, lookedAt),
              }
            : null;
        return expected.state;
      }
    }
    const { state, bytes } = this.read();
    const after = this.identity();
    this.cached =
      before !== null && after?.key === before.key
        ? { key: before.key, state, bytes, settledClock: settledClock(before, lookedAt) }
        : null;
    return state;
  }

  /**
   * Writes `file` (the lock held) and keeps it as the cached state, so the next load does not read back
   * what this store wrote. The identity taken after the write is no proof that the file is still ours
   * (another writer may have replaced it since the rename): it starts racily clean, and the bytes
   * decide until it settles. Loads while the write lands compare the bytes with it too.
   */
  private async write(file: ApprovalsFile): Promise<void> {
    // Every write holds the lock, so a temp file of this one is a leftover of a writer killed mid-write.
    await removeLeftoverTempsOf(this.path);
    // as core/store's writeJsonFile: never write what could not be read back
    const text = formatJson(parse(ApprovalsFileSchema, file));
    // The bytes as a read would parse them: the text is the schema's own output (validated, defaults
    // applied, no transforms), which the schema gives back unchanged, so it is not validated twice.
    const written = {
      state: { status: "ok", path: this.path, file: JSON.parse(text) as ApprovalsFile },
      bytes: Buffer.from(text, "utf8"),
    } as const;
    this.writing = written;
    try {
      await writeFileAtomic(this.path, written.bytes);
    } finally {
      this.writing = null;
    }
    const identity = this.identity();
    // Trust is checked after every read; what was written is held to the same rule (a folder above may
    // have been opened to others since `assertTrusted`): an untrusted file is read back and reported.
    this.cached =
      identity === null || checkTrustedFile(this.path)
        ? null
        : { key: identity.key, state: written.state, bytes: written.bytes, settledClock: null };
  }

  /** Creates the file on first use (fresh token, no defaults: built-in deny). An invalid file stays as it is. */
  async ensure(): Promise<ApprovalsState> {
    const current = await this.load();
    if (current.status !== "missing") return current;
    return withFileLock(this.path, async () => {
      const { state } = this.read();
      if (state.status !== "missing") return state;
      this.assertTrusted(); // the folder it would be created in
      const file = this.freshFile();
      await this.write(file);
      this.wrote();
      return { status: "ok", path: this.path, file } satisfies ApprovalsState;
    });
  }

  /**
   * Locked read-modify-write. `mutate` may change the file in place or return a new one. A missing
   * file is created first; an invalid one throws `InvalidFileError` and is not touched.
   */
  async update(mutate: (file: ApprovalsFile) => ApprovalsFile | void): Promise<ApprovalsFile> {
    this.assertTrusted();
    // core/store's updateJsonFile, keeping the write as this store's state: under the lock, so the UI
    // and the CLI (which take it too) cannot write between the rename and the identity taken after it.
    const result = await withFileLock(this.path, async () => {
      const current = await loadJsonFile(this.path, ApprovalsFileSchema, () => this.freshFile());
      const draft = structuredClone(current);
      const next = mutate(draft) ?? draft;
      await this.write(next);
      return next;
    });
    this.wrote();
    return result;
  }

  /**
   * Elevated mode: security=full for `agentId` (`*` = every agent) until `until` (epoch ms). Replaces an
   * earlier elevation of the same agent.
   */
  async elevate(agentId: string, until: number, by: string): Promise<Elevation> {
    checkAgentId(agentId);
    const since = this.now();
    if (!Number.isInteger(until) || until <= since)
      throw new AllowlistEntryError("agentId", "an elevation must end in the future");
    const elevation: Elevation = { until, since, by };
    await this.update((file) => {
      file.elevated = { ...(file.elevated ?? {}), [agentId]: elevation };
    });
    return elevation;
  }

  /**
   * Ends elevations: of one agent, or all when `agentId` is undefined. Returns the agents whose
   * elevation was still running. Never creates the file.
   */
  async endElevation(agentId?: string): Promise<string[]> {
    const state = await this.load();
    if (state.status !== "ok" || !state.file.elevated) return [];
    const now = this.now();
    let ended: string[] = [];
    await this.update((file) => {
      const current = file.elevated ?? {};
      const names = agentId === undefined ? Object.keys(current) : [agentId].filter((a) => a in current);
      ended = names.filter((name) => (current[name]?.until ?? 0) > now);
      for (const name of names) delete current[name];
      if (Object.keys(current).length === 0) delete file.elevated;
      else file.elevated = current;
    });
    return ended;
  }

  /** Sets security/ask/askFallback of `defaults` (or of one agent) to a preset. */
  async applyPreset(name: PresetName, agentId?: string): Promise<ApprovalsFile> {
    const preset = PRESETS[name];
    if (!preset)
      throw new AllowlistEntryError("agentId", `unknown preset "${String(name)}" (${presetChoices()})`);
    return this.setAgentSettings(agentId ?? DEFAULTS_AGENT_ID, { ...preset.settings });
  }

  /**
   * Sets settings of one agent, or of `defaults` when agentId is "defaults". A key given as
   * `undefined` removes the field, so the agent inherits it again.
   */
  async setAgentSettings(agentId: string, settings: Partial<PolicySettings>): Promise<ApprovalsFile> {
    checkAgentId(agentId);
    const checks = { security: SecuritySchema, ask: AskSchema, askFallback: AskFallbackSchema } as const;
    for (const key of Object.keys(checks) as (keyof typeof checks)[]) {
      const value = settings[key];
      if (value !== undefined && !checks[key].safeParse(value).success) {
        throw new AllowlistEntryError("agentId", `${key} cannot be "${String(value)}"`);
      }
    }
    return this.update((file) => {
      const target: PolicySettings | AgentSettings =
        agentId === DEFAULTS_AGENT_ID ? (file.defaults ??= {}) : (file.agents[agentId] ??= {});
      for (const key of Object.keys(checks) as (keyof typeof checks)[]) {
        if (!(key in settings)) continue;
        const value = settings[key];
        if (value === undefined) delete target[key];
        else (target as Record<string, unknown>)[key] = value;
      }
    });
  }

  /** Adds an entry to `agents[agentId].allowlist`; throws `AllowlistEntryError` when it is invalid. */
  async addEntry(agentId: string, entry: NewAllowlistEntry): Promise<AllowlistEntry> {
    checkAgentId(agentId);
    const checked = validateEntry(entry);
    if (!checked.ok) throw new AllowlistEntryError(checked.field, checked.reason);
    let added: AllowlistEntry | undefined;
    await this.update((file) => {
      const agent = (file.agents[agentId] ??= {});
      added = {
        id: newEntryId(allEntryIds(file)),
        ...entryFields(entry),
        source: entry.source ?? "user",
        createdAt: this.now(),
      };
      (agent.allowlist ??= []).push(added);
    });
    return added as AllowlistEntry;
  }

  /** Changes fields of one entry; `undefined` in the patch removes an optional field. */
  async updateEntry(agentId: string, id: string, patch: Partial<NewAllowlistEntry>): Promise<AllowlistEntry> {
    let updated: AllowlistEntry | undefined;
    await this.update((file) => {
      const list = file.agents[agentId]?.allowlist ?? [];
      const index = list.findIndex((e) => e.id === id);
      const current = list[index];
      if (!current) throw new AllowlistEntryError("id", `no allowlist entry ${id} for agent ${agentId}`);
      const next: AllowlistEntry = { ...current };
      for (const [key, value] of Object.entries(patch)) {
        if (!["pattern", "argPattern", "cwd", "expiresAt", "usesLeft", "source"].includes(key)) continue;
        if (value === undefined) delete (next as Record<string, unknown>)[key];
        else (next as Record<string, unknown>)[key] = value;
      }
      const checked = validateEntry(next);
      if (!checked.ok) throw new AllowlistEntryError(checked.field, checked.reason);
      list[index] = next;
      updated = next;
    });
    return updated as AllowlistEntry;
  }

  /** Removes one entry; false when it was not there (nothing is written then). */
  async removeEntry(agentId: string, id: string): Promise<boolean> {
    const state = await this.load();
    if (state.status === "missing") return false;
    let removed = false;
    await this.update((file) => {
      const agent = file.agents[agentId];
      const before = agent?.allowlist?.length ?? 0;
      if (agent?.allowlist) agent.allowlist = agent.allowlist.filter((e) => e.id !== id);
      removed = (agent?.allowlist?.length ?? 0) < before;
    });
    return removed;
  }

  /**
   * Takes one use of each entry with a `usesLeft` limit among `entryIds` (for `agentId` or `*`), all or
   * nothing, under the file's lock: what it checks is the file as it is now, so two deciders (two
   * requests of one runner, or two processes) can never both take an entry's last use. Returns the ids
   * that had no use left (or were removed meanwhile); then nothing was written. Unlimited entries are
   * skipped; an entry named twice is counted once.
   */
  async consumeUses(agentId: string, entryIds: string[]): Promise<string[]> {
    if (entryIds.length === 0) return [];
    if ((await this.load()).status !== "ok") return [...new Set(entryIds)];
    const usedUp: string[] = [];
    const counted: { usesLeft?: number | null }[] = [];
    await this.update((file) => {
      usedUp.length = 0;
      counted.length = 0;
      const entries = [...(file.agents[agentId]?.allowlist ?? []), ...(file.agents["*"]?.allowlist ?? [])];
      for (const id of new Set(entryIds)) {
        const entry = entries.find((e) => e.id === id);
        if (!entry || (typeof entry.usesLeft === "number" && entry.usesLeft <= 0)) usedUp.push(id);
        else if (typeof entry.usesLeft === "number") counted.push(entry);
      }
      if (usedUp.length > 0) return;
      for (const entry of counted) entry.usesLeft = (entry.usesLeft as number) - 1;
    });
    return usedUp;
  }

  /**
   * Notes after a covered run, for the editor: lastUsedAt/lastUsedCommand/lastResolvedPath. Uses are
   * counted when the run is decided (`consumeUses`), never here. Entries removed meanwhile are skipped;
   * a missing file stays missing. `at` is when the entry was used (epoch ms; default now): notes
   * written a moment later keep it.
   */
  async recordUse(
    agentId: string,
    uses: { entryId: string; command: string; resolvedPath: string | null; at?: number }[],
  ): Promise<void> {
    if (uses.length === 0) return;
    if ((await this.load()).status === "missing") return;
    const at = this.now();
    await this.update((file) => {
      const lists = [file.agents[agentId]?.allowlist ?? [], file.agents["*"]?.allowlist ?? []];
      for (const use of uses) {
        const entry = lists.flat().find((e) => e.id === use.entryId);
        if (!entry) continue;
        entry.lastUsedAt = use.at ?? at;
        entry.lastUsedCommand = use.command;
        entry.lastResolvedPath = use.resolvedPath;
      }
    });
  }

  /**
   * Saves the entries a person confirmed with *allow always* (source "allow-always"). Refuses (throws
   * `AllowlistEntryError`, nothing written) a shell, sudo/doas or `*` without an argPattern, and any
   * invalid entry. An entry equal to an existing one is not added twice.
   */
  async saveAllowAlways(agentId: string, entries: AllowAlwaysEntry[]): Promise<AllowlistEntry[]> {
    checkAgentId(agentId);
    for (const entry of entries) {
      const refused = allowAlwaysProblem(entry);
      if (refused) throw new AllowlistEntryError("pattern", refused);
      const checked = validateEntry(entry);
      if (!checked.ok) throw new AllowlistEntryError(checked.field, checked.reason);
    }
    const saved: AllowlistEntry[] = [];
    await this.update((file) => {
      const list = ((file.agents[agentId] ??= {}).allowlist ??= []);
      const taken = allEntryIds(file);
      for (const entry of entries) {
        const limited = entry.expiresAt !== undefined || entry.usesLeft !== undefined;
        const same = list.find(
          (e) =>
            !limited &&
            e.pattern === entry.pattern &&
            (e.argPattern ?? "") === (entry.argPattern ?? "") &&
            (e.cwd ?? "") === (entry.cwd ?? "") &&
            !e.expiresAt &&
            (e.usesLeft === undefined || e.usesLeft === null),
        );
        if (same) {
          saved.push(same);
          continue;
        }
        const added: AllowlistEntry = {
          id: newEntryId(taken),
          pattern: entry.pattern,
          ...(entry.argPattern ? { argPattern: entry.argPattern } : {}),
          ...(entry.cwd ? { cwd: entry.cwd } : {}),
          ...(entry.expiresAt !== undefined ? { expiresAt: entry.expiresAt } : {}),
          ...(entry.usesLeft !== undefined ? { usesLeft: entry.usesLeft } : {}),
          source: "allow-always",
          createdAt: this.now(),
        };
        taken.add(added.id);
        list.push(added);
        saved.push(added);
      }
    });
    return saved;
  }

  /** Replaces the socket token (clients holding the old one are refused from then on). */
  async rotateToken(): Promise<void> {
    await this.update((file) => {
      file.socket.token = newSocketToken();
    });
  }

  private freshFile(): ApprovalsFile {
    return { version: 1, socket: { path: this.defaultSocketPath, token: newSocketToken() }, agents: {} };
  }

  /** Throws `UntrustedApprovalsError` when another user could have written the file or its folders. */
  private assertTrusted(): void {
    const problem = checkTrustedFile(this.path);
    if (problem) throw new UntrustedApprovalsError(this.path, problem);
  }

  /** The state of the file now, and the bytes it was parsed from (null when none were read). */
  private read(): { state: ApprovalsState; bytes: Buffer | null } {
    this.readCount++;
    // Checked on every read (the cache above re-reads when the file's identity changes, a chmod included).
    const problem = checkTrustedFile(this.path);
    if (problem)
      return { state: { status: "invalid", path: this.path, error: problem.message }, bytes: null };
    // Blocking: a local file of a few kilobytes reads in microseconds, less than a thread-pool round trip
    // costs the event loop, and a one-shot command then never loads the file promise API (issue 12).
    const read = readFileBytesSync(this.path);
    const bytes = read.status === "ok" ? read.bytes : null;
    const result =
      read.status === "ok" ? parseJsonText(read.bytes.toString("utf8"), ApprovalsFileSchema) : read;
    if (result.status === "ok")
      return { state: { status: "ok", path: this.path, file: result.value }, bytes };
    if (result.status === "missing") return { state: { status: "missing", path: this.path }, bytes };
    return {
      state: { status: "invalid", path: this.path, error: invalidMessage(this.path, result.error) },
      bytes,
    };
  }

  /**
   * One synchronous `stat` (microseconds on a local file) rather than a thread-pool round trip: it is on
   * the path of every request of a store that is not watched (issue 12, exec.overhead). Mode, owner and
   * group are part of it: a chmod within the same clock tick leaves ctime as it was.
   */
  private identity(): FileIdentity | null {
    try {
      const s = fs.statSync(this.path, { bigint: true, throwIfNoEntry: false });
      if (!s) return null;
      return {
        key: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.mode}:${s.uid}:${s.gid}`,
        changedMs: Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n),
      };
    } catch {
      return null;
    }
  }
}

/**
 * The racily-clean rule (core/io/racily-clean.ts): an identity whose time stamps were over
 * GRANULARITY_MS old when the file was looked at (`lookedAt`: the wall clock before the stat) cannot be
 * carried by a later change. Returns the clock offset to keep with it, or null while it is racy.
 */
function settledClock(identity: FileIdentity, lookedAt: number): number | null {
  return settledBefore(identity.changedMs, lookedAt) ? clockOffset() : null;
}

function checkAgentId(agentId: string): void {
  if (
    typeof agentId !== "string" ||
    agentId.length === 0 ||
    agentId.length > 200 ||
    hasControlCharacter(agentId)
  ) {
    throw new AllowlistEntryError("agentId", "agent id must be 1–200 printable characters");
  }
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}
