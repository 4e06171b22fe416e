// The agent sessions of tasks kept on disk (issue 31 item 5), as Wegent's executor keeps them: a
// follow-up turn after Gatehouse restarted resumes the Claude Code session or Codex thread of its task
// when the folder is unchanged (task-turn.ts decides that, as before the restart). `E/agent-sessions.json`
// (0600, in Gatehouse's own data, which no agent may read or write), written atomically after each
// change; an unreadable or invalid file only means new sessions, never a failed task.
import path from "node:path";
import { z } from "zod";
import type { Logger } from "../../core/log.js";
import { readJsonFile, removeLeftoverTempsOf, writeFileAtomic } from "../../core/store/index.js";
import type { AgentSession } from "./task-turn.js";

export const AGENT_SESSIONS_FILE = "agent-sessions.json";
/** As long as a task's workdir binding is kept (workdir.md §9). */
export const SESSION_MAX_AGE_MS = 90 * 24 * 60 * 60_000;

const StoredSessionSchema = z.object({
  runtime: z.enum(["claude-code", "codex"]),
  resumeId: z.string().min(1).max(500),
  cwd: z.string().min(1),
  updatedAt: z.number().int().nonnegative(),
});

export const AgentSessionsFileSchema = z.object({
  version: z.literal(1),
  sessions: z.record(z.string().max(200), z.unknown()),
});

export function agentSessionsFile(executorHome: string): string {
  return path.join(executorHome, AGENT_SESSIONS_FILE);
}

/**
 * The runner's map of live agent sessions, written through to disk. It is the Map task-turn.ts already
 * reads and changes (its order is least recently used first); every set and delete schedules one write.
 */
export class AgentSessionStore extends Map<string, AgentSession> {
  private loaded: Promise<void> | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private readonly updatedAt = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  /** Reads the file once (later calls wait for the same read). */
  load(): Promise<void> {
    this.loaded ??= this.read();
    return this.loaded;
  }

  override set(taskId: string, session: AgentSession): this {
    super.set(taskId, session);
    this.updatedAt.set(taskId, this.now());
    this.changed();
    return this;
  }

  override delete(taskId: string): boolean {
    const had = super.delete(taskId);
    this.updatedAt.delete(taskId);
    if (had) this.changed();
    return had;
  }

  override clear(): void {
    super.clear();
    this.updatedAt.clear();
    this.changed();
  }

  /** Resolves once everything changed so far is on disk. */
  async flush(): Promise<void> {
    await this.writing;
  }

  private changed(): void {
    if (!this.loaded) return; // before the first read: nothing to write over
    if (this.dirty) return;
    this.dirty = true;
    this.writing = this.writing.then(() => this.write());
  }

  private async read(): Promise<void> {
    // Read once at the runner's start, before its first write, by the one runner of this E (as
    // services.ts sweeps E/runtime): a temp file of this one is a leftover of a write a kill cut short.
    await removeLeftoverTempsOf(this.file).catch((error: unknown) =>
      this.logger.warn(`Could not remove a leftover temp file next to ${this.file}`, { error }),
    );
    const read = await readJsonFile(this.file, AgentSessionsFileSchema);
    if (read.status === "invalid") {
      this.logger.warn(`${this.file} is invalid (${read.error}); later turns start new agent sessions`);
      return;
    }
    if (read.status === "missing") return;
    const oldest = this.now() - SESSION_MAX_AGE_MS;
    const entries = Object.entries(read.value.sessions)
      .map(([taskId, raw]) => [taskId, StoredSessionSchema.safeParse(raw)] as const)
      .filter(([, parsed]) => parsed.success && parsed.data.updatedAt >= oldest)
      .map(([taskId, parsed]) => [taskId, parsed.data!] as const)
      .sort((a, b) => a[1].updatedAt - b[1].updatedAt);
    for (const [taskId, stored] of entries) {
      if (super.has(taskId)) continue; // a turn of this run already started a newer one
      super.set(taskId, { runtime: stored.runtime, resumeId: stored.resumeId, cwd: stored.cwd });
      this.updatedAt.set(taskId, stored.updatedAt);
    }
  }

  private async write(): Promise<void> {
    this.dirty = false;
    const sessions: Record<string, z.infer<typeof StoredSessionSchema>> = {};
    for (const [taskId, session] of this.entries())
      sessions[taskId] = { ...session, updatedAt: this.updatedAt.get(taskId) ?? this.now() };
    try {
      await writeFileAtomic(this.file, `${JSON.stringify({ version: 1, sessions }, null, 2)}\n`, {
        mode: 0o600,
      });
    } catch (error) {
      this.logger.warn(`Could not keep the agent sessions in ${this.file}`, { error });
    }
  }
}
