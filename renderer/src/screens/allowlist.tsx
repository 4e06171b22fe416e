// The allowlist editor (ui.md "Allowlist editor"): effective settings per agent with `*` and defaults,
// the entries table (add, edit, delete, duplicate, sort, filter), validation as you type, the test box
// with the live explanation, and the audit preview. Every change is written at once by main; edits
// made elsewhere arrive through the `allowlist.changed` event.
import { useMemo, useState } from "react";
import type {
  AgentView,
  AllowlistState,
  AuditPreview,
  EntryCheck,
  EntryInput,
  EntryView,
  Explanation,
  PolicySettings,
} from "../../../src/ipc/contract.js";
import { call, useDebounced, useLiveEffect, useRemote } from "../bridge.js";
import { Empty, Loading, Message, Pill, Section } from "../components/common.js";
import { SegmentList } from "../components/explanation.js";
import {
  ASK_WORDS,
  FALLBACK_WORDS,
  OUTCOME_WORDS,
  SECURITY_WORDS,
  clock,
  reasonWords,
  relativeTime,
} from "../words.js";

function agentLabel(id: string): string {
  return id === "*" ? "All agents (*)" : id;
}

function sourceLabel(source: string): string {
  if (source === "built-in") return "built-in";
  if (source === "defaults") return "defaults";
  if (source === "agents.*") return "all agents";
  if (source.startsWith("agents.")) return "this agent";
  return source;
}

// ---- settings -------------------------------------------------------------------------------------

function SettingSelect<K extends "security" | "ask" | "askFallback">(props: {
  target: string;
  field: K;
  label: string;
  own: PolicySettings[K] | undefined;
  inherited: string;
  words: Record<string, { label: string; help: string }>;
  effective: string;
  onChange: (value: string | null) => void;
}) {
  const id = `setting-${props.target === "*" ? "all" : props.target}-${props.field}`;
  const current = props.own ?? "";
  return (
    <div className="field setting">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        value={current}
        onChange={(e) => props.onChange(e.target.value === "" ? null : e.target.value)}
        aria-describedby={`${id}-help`}
      >
        <option value="">Inherit: {props.inherited}</option>
        {Object.entries(props.words).map(([value, w]) => (
          <option key={value} value={value}>
            {w.label}
          </option>
        ))}
      </select>
      <span id={`${id}-help`} className="field-note">
        {props.words[props.effective]?.help}
      </span>
    </div>
  );
}

function SettingsCard(props: {
  target: string;
  own: PolicySettings;
  effective: { security: string; ask: string; askFallback: string; sources: Record<string, string> } | null;
  builtIn: AllowlistState["builtIn"];
  defaults: PolicySettings;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const set = async (field: "security" | "ask" | "askFallback", value: string | null) => {
    const result = await call("allowlist.setSettings", {
      agentId: props.target,
      [field]: value,
    } as never).catch((e: Error) => ({ ok: false as const, reason: e.message }));
    setProblem(result.ok ? null : result.reason);
  };
  const isDefaults = props.target === "defaults";
  const inherited = (field: "security" | "ask" | "askFallback") => {
    if (isDefaults) return `${props.builtIn[field]} (built-in)`;
    if (props.effective && props.own[field] === undefined) {
      return `${props.effective[field]} (${sourceLabel(props.effective.sources[field] ?? "")})`;
    }
    return "defaults";
  };
  const effective = (field: "security" | "ask" | "askFallback") =>
    props.effective ? props.effective[field] : (props.own[field] ?? props.builtIn[field]);
  return (
    <div className="settings-card">
      <div className="settings-grid">
        <SettingSelect
          target={props.target}
          field="security"
          label="Security"
          own={props.own.security}
          inherited={inherited("security")}
          words={SECURITY_WORDS}
          effective={effective("security")}
          onChange={(v) => void set("security", v)}
        />
        <SettingSelect
          target={props.target}
          field="ask"
          label="Ask"
          own={props.own.ask}
          inherited={inherited("ask")}
          words={ASK_WORDS}
          effective={effective("ask")}
          onChange={(v) => void set("ask", v)}
        />
        <SettingSelect
          target={props.target}
          field="askFallback"
          label="If nobody answers"
          own={props.own.askFallback}
          inherited={inherited("askFallback")}
          words={FALLBACK_WORDS}
          effective={effective("askFallback")}
          onChange={(v) => void set("askFallback", v)}
        />
      </div>
      {problem ? (
        <Message tone="error" live>
          {problem}
        </Message>
      ) : null}
    </div>
  );
}

// ---- entry editor ---------------------------------------------------------------------------------

interface Draft {
  pattern: string;
  argPattern: string;
  cwd: string;
  expires: string;
  uses: string;
}

const EMPTY_DRAFT: Draft = { pattern: "", argPattern: "", cwd: "", expires: "", uses: "" };

function toLocalInput(ms: number | null | undefined): string {
  if (!ms) return "";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function draftOf(view: EntryView | null): Draft {
  if (!view) return EMPTY_DRAFT;
  const e = view.entry;
  return {
    pattern: e.pattern,
    argPattern: e.argPattern ?? "",
    cwd: e.cwd ?? "",
    expires: toLocalInput(e.expiresAt),
    uses: typeof e.usesLeft === "number" ? String(e.usesLeft) : "",
  };
}

type DraftParse =
  { ok: true; entry: EntryInput } | { ok: false; field: "expiresAt" | "usesLeft"; reason: string };

function parseDraft(draft: Draft): DraftParse {
  const entry: EntryInput = { pattern: draft.pattern };
  if (draft.argPattern !== "") entry.argPattern = draft.argPattern;
  if (draft.cwd.trim() !== "") entry.cwd = draft.cwd.trim();
  if (draft.expires !== "") {
    const ms = new Date(draft.expires).getTime();
    if (!Number.isFinite(ms)) return { ok: false, field: "expiresAt", reason: "not a date and time" };
    entry.expiresAt = ms;
  } else entry.expiresAt = null;
  if (draft.uses.trim() !== "") {
    const n = Number(draft.uses);
    if (!Number.isInteger(n) || n < 0)
      return { ok: false, field: "usesLeft", reason: "uses left must be a whole number ≥ 0" };
    entry.usesLeft = n;
  } else entry.usesLeft = null;
  return { ok: true, entry };
}

function FieldNote(props: { id: string; error?: string | null; note?: string | null }) {
  return (
    <span id={props.id} className={props.error ? "field-error" : "field-note"} aria-live="polite">
      {props.error ?? props.note ?? ""}
    </span>
  );
}

function EntryEditor(props: {
  agentId: string;
  editing: EntryView | null;
  onDone: (message: string | null) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.editing));
  const [check, setCheck] = useState<EntryCheck | null>(null);
  const [preview, setPreview] = useState<AuditPreview | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const settled = useDebounced(draft, 120);
  const parsed = parseDraft(draft);
  const settledParsed = useMemo(() => parseDraft(settled), [settled]);

  useLiveEffect(
    (live) => {
      if (!settledParsed.ok) return;
      void call("allowlist.checkEntry", { entry: settledParsed.entry, agentId: props.agentId }).then(
        (result) => {
          if (live()) setCheck(result);
        },
      );
    },
    [settledParsed, props.agentId],
  );

  useLiveEffect(
    (live) => {
      if (!settledParsed.ok || settledParsed.entry.pattern.trim() === "") {
        setPreview(null);
        return;
      }
      void call("allowlist.preview", {
        agentId: props.agentId,
        entry: settledParsed.entry,
        ...(props.editing ? { replaceId: props.editing.entry.id } : {}),
      }).then((result) => {
        if (live()) setPreview(result.ok ? result.preview : null);
      });
    },
    [settledParsed, props.agentId, props.editing],
  );

  const fieldError = (field: string): string | null => {
    if (!parsed.ok && parsed.field === field) return parsed.reason;
    if (check && !check.ok && check.field === field) return check.reason;
    return null;
  };
  const valid = parsed.ok && check !== null && check.ok && settled === draft;

  const save = async () => {
    if (!parsed.ok) return;
    setSaving(true);
    try {
      const result = props.editing
        ? await call("allowlist.updateEntry", {
            agentId: props.agentId,
            id: props.editing.entry.id,
            entry: parsed.entry,
          })
        : await call("allowlist.addEntry", { agentId: props.agentId, entry: parsed.entry });
      if (result.ok) props.onDone(props.editing ? "Entry saved." : "Entry added.");
      else setSaveError(result.reason);
    } catch (error) {
      setSaveError((error as Error).message);
    } finally {
      setSaving(false);
    }
  };

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => {
    setSaveError(null);
    setDraft((d) => ({ ...d, [key]: e.target.value }));
  };

  return (
    <form
      className="entry-editor"
      aria-label={props.editing ? "Edit allowlist entry" : "New allowlist entry"}
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) void save();
      }}
    >
      <h3>{props.editing ? "Edit entry" : `New entry for ${agentLabel(props.agentId)}`}</h3>
      <div className="editor-grid">
        <div className="field wide">
          <label htmlFor="entry-pattern">Program (pattern)</label>
          <input
            id="entry-pattern"
            className="mono"
            value={draft.pattern}
            onChange={set("pattern")}
            spellCheck={false}
            placeholder="/usr/bin/git, rg, ~/bin/**"
            aria-invalid={Boolean(fieldError("pattern"))}
            aria-describedby="entry-pattern-note"
            autoFocus
          />
          <FieldNote
            id="entry-pattern-note"
            error={fieldError("pattern")}
            note={check?.notes.join(" ") ?? null}
          />
        </div>
        <div className="field wide">
          <label htmlFor="entry-args">Arguments (regular expression)</label>
          <input
            id="entry-args"
            className="mono"
            value={draft.argPattern}
            onChange={set("argPattern")}
            spellCheck={false}
            placeholder="^status( |$)"
            aria-invalid={Boolean(fieldError("argPattern"))}
            aria-describedby="entry-args-note"
          />
          <FieldNote
            id="entry-args-note"
            error={fieldError("argPattern")}
            note="Optional. Tested against the arguments joined with spaces."
          />
        </div>
        <div className="field wide">
          <label htmlFor="entry-cwd">Only in folders matching</label>
          <input
            id="entry-cwd"
            className="mono"
            value={draft.cwd}
            onChange={set("cwd")}
            spellCheck={false}
            placeholder="~/Projects/**"
            aria-invalid={Boolean(fieldError("cwd"))}
            aria-describedby="entry-cwd-note"
          />
          <FieldNote
            id="entry-cwd-note"
            error={fieldError("cwd")}
            note="Optional glob for the working folder."
          />
        </div>
        <div className="field">
          <label htmlFor="entry-expires">Expires</label>
          <input
            id="entry-expires"
            type="datetime-local"
            value={draft.expires}
            onChange={set("expires")}
            aria-invalid={Boolean(fieldError("expiresAt"))}
            aria-describedby="entry-expires-note"
          />
          <FieldNote id="entry-expires-note" error={fieldError("expiresAt")} note="Empty: never." />
        </div>
        <div className="field">
          <label htmlFor="entry-uses">Uses left</label>
          <input
            id="entry-uses"
            inputMode="numeric"
            value={draft.uses}
            onChange={set("uses")}
            aria-invalid={Boolean(fieldError("usesLeft"))}
            aria-describedby="entry-uses-note"
          />
          <FieldNote id="entry-uses-note" error={fieldError("usesLeft")} note="Empty: unlimited." />
        </div>
      </div>
      <div className="preview" aria-live="polite">
        <h4>Past commands this entry would have covered</h4>
        {preview === null ? (
          <p className="muted">Type a valid pattern to see which past commands it covers.</p>
        ) : preview.covered.length === 0 ? (
          <p className="muted">None of the last {preview.scanned} distinct commands.</p>
        ) : (
          <ul className="preview-list">
            {preview.covered.slice(0, 20).map((c, i) => (
              <li key={i}>
                <span className="mono selectable">{c.command}</span>{" "}
                <span className="muted">
                  {relativeTime(c.ts)} ·{" "}
                  {c.coverage === "all" ? "would run without asking" : "part of it covered"}
                </span>
              </li>
            ))}
            {preview.covered.length > 20 ? (
              <li className="muted">and {preview.covered.length - 20} more</li>
            ) : null}
          </ul>
        )}
      </div>
      {saveError ? (
        <Message tone="error" live>
          {saveError}
        </Message>
      ) : null}
      <div className="button-row">
        <span className="spacer" />
        <button type="button" className="button" onClick={() => props.onDone(null)}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={!valid || saving}>
          {props.editing ? "Save entry" : "Add entry"}
        </button>
      </div>
    </form>
  );
}

// ---- entries table --------------------------------------------------------------------------------

type SortKey = "pattern" | "argPattern" | "cwd" | "source" | "lastUsed";

function limitsText(view: EntryView, now: number): string {
  const parts: string[] = [];
  const e = view.entry;
  if (view.liveness === "expired") parts.push("expired");
  else if (e.expiresAt) parts.push(`expires ${relativeTime(e.expiresAt, now)}`);
  if (view.liveness === "used-up") parts.push("used up");
  else if (typeof e.usesLeft === "number") parts.push(`${e.usesLeft} uses left`);
  return parts.length ? parts.join(", ") : "none";
}

function EntriesTable(props: {
  agent: AgentView;
  now: number;
  onEdit: (view: EntryView) => void;
  onChanged: (message: string) => void;
}) {
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ key: SortKey; up: boolean }>({ key: "pattern", up: true });
  const [problem, setProblem] = useState<string | null>(null);
  const rows = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    const value = (v: EntryView): string | number => {
      const e = v.entry;
      if (sort.key === "lastUsed") return e.lastUsedAt ?? 0;
      return String(e[sort.key] ?? "").toLowerCase();
    };
    return props.agent.entries
      .filter((v) => {
        const e = v.entry;
        const hay = [e.pattern, e.argPattern, e.cwd, e.source, e.lastUsedCommand, v.resolvesTo]
          .join(" ")
          .toLowerCase();
        return words.every((w) => hay.includes(w));
      })
      .sort((a, b) => {
        const x = value(a);
        const y = value(b);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return sort.up ? order : -order;
      });
  }, [props.agent.entries, filter, sort]);

  const header = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.up ? "ascending" : "descending") : "none"}>
      <button
        type="button"
        className="sort-button"
        onClick={() => setSort((s) => ({ key, up: s.key === key ? !s.up : true }))}
      >
        {label}
        <span aria-hidden="true">{sort.key === key ? (sort.up ? " ▲" : " ▼") : ""}</span>
      </button>
    </th>
  );

  const remove = async (view: EntryView) => {
    const result = await call("allowlist.deleteEntry", { agentId: view.agentId, id: view.entry.id }).catch(
      (e: Error) => {
        setProblem(e.message);
        return null;
      },
    );
    if (result)
      props.onChanged(result.removed ? `Deleted ${view.entry.pattern}.` : "That entry was already gone.");
  };
  const duplicate = async (view: EntryView) => {
    const result = await call("allowlist.duplicateEntry", { agentId: view.agentId, id: view.entry.id });
    if (result.ok) props.onChanged(`Duplicated ${view.entry.pattern}.`);
    else setProblem(result.reason);
  };

  return (
    <>
      <div className="toolbar">
        <label className="visually-hidden" htmlFor="entry-filter">
          Filter entries
        </label>
        <input
          id="entry-filter"
          type="search"
          placeholder="Filter entries"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        <span className="muted">
          {rows.length} of {props.agent.entries.length}
        </span>
      </div>
      {problem ? (
        <Message tone="error" live>
          {problem}
        </Message>
      ) : null}
      {props.agent.entries.length === 0 ? (
        <Empty>
          No entries yet. Commands of this agent are covered only by the entries of all agents (*).
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table entries" aria-label={`Allowlist entries of ${agentLabel(props.agent.id)}`}>
            <thead>
              <tr>
                {header("pattern", "Program")}
                {header("argPattern", "Arguments")}
                {header("cwd", "Folder")}
                <th scope="col">Limits</th>
                {header("source", "Source")}
                {header("lastUsed", "Last used")}
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((view) => {
                const e = view.entry;
                const inactive = view.liveness !== "live";
                return (
                  <tr key={e.id} className={inactive ? "inactive" : undefined} data-entry-id={e.id}>
                    <td>
                      <span className="mono selectable">{e.pattern}</span>
                      {view.resolvesTo ? <div className="cell-note">→ {view.resolvesTo}</div> : null}
                      {view.problem ? <div className="cell-note warn-text">{view.problem}</div> : null}
                    </td>
                    <td className="mono selectable">{e.argPattern ?? <span className="muted">any</span>}</td>
                    <td className="mono selectable">{e.cwd ?? <span className="muted">any</span>}</td>
                    <td>
                      {inactive ? (
                        <Pill tone="neutral">{limitsText(view, props.now)}</Pill>
                      ) : (
                        limitsText(view, props.now)
                      )}
                    </td>
                    <td>{e.source ?? "—"}</td>
                    <td>
                      <span title={e.lastUsedAt ? clock(e.lastUsedAt) : undefined}>
                        {relativeTime(e.lastUsedAt, props.now)}
                      </span>
                      {e.lastUsedCommand ? <div className="cell-note mono">{e.lastUsedCommand}</div> : null}
                    </td>
                    <td className="actions">
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => props.onEdit(view)}
                        aria-label={`Edit ${e.pattern}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => void duplicate(view)}
                        aria-label={`Duplicate ${e.pattern}`}
                      >
                        Duplicate
                      </button>
                      <button
                        type="button"
                        className="link-button danger"
                        onClick={() => void remove(view)}
                        aria-label={`Delete ${e.pattern}`}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

// ---- test box -------------------------------------------------------------------------------------

function TestBox(props: { agentId: string; version: number }) {
  const [command, setCommand] = useState("");
  const [cwd, setCwd] = useState("");
  const settled = useDebounced({ command, cwd, version: props.version }, 150);
  const [result, setResult] = useState<{ explanation: Explanation } | { reason: string } | null>(null);
  useLiveEffect(
    (live) => {
      if (settled.command.trim() === "") {
        setResult(null);
        return;
      }
      void call("allowlist.explain", {
        agentId: props.agentId,
        command: settled.command,
        ...(settled.cwd.trim() ? { cwd: settled.cwd } : {}),
      }).then(
        (r) => live() && setResult(r.ok ? { explanation: r.explanation } : { reason: r.reason }),
        (e: Error) => live() && setResult({ reason: e.message }),
      );
    },
    [settled, props.agentId],
  );
  const x = result && "explanation" in result ? result.explanation : null;
  return (
    <div className="test-box">
      <div className="editor-grid">
        <div className="field wide">
          <label htmlFor="test-command">Command</label>
          <input
            id="test-command"
            className="mono"
            value={command}
            spellCheck={false}
            placeholder="git status && npm test"
            onChange={(e) => setCommand(e.target.value)}
          />
        </div>
        <div className="field wide">
          <label htmlFor="test-cwd">In folder</label>
          <input
            id="test-cwd"
            className="mono"
            value={cwd}
            spellCheck={false}
            placeholder="~ (home)"
            onChange={(e) => setCwd(e.target.value)}
          />
        </div>
      </div>
      <div className="test-result" aria-live="polite" data-testid="test-result">
        {result === null ? (
          <p className="muted">Type a command to see how {agentLabel(props.agentId)} would be decided.</p>
        ) : x ? (
          <>
            <p className="state-line">
              <Pill tone={x.outcome === "run" ? "good" : x.outcome === "prompt" ? "warn" : "bad"}>
                {OUTCOME_WORDS[x.outcome]}
              </Pill>{" "}
              <span>{reasonWords(x)}</span>
            </p>
            <p className="muted">
              security {x.security} · ask {x.ask} · if nobody answers: {x.askFallback}
            </p>
            <SegmentList explanation={x} />
          </>
        ) : (
          <Message tone="warn">{"reason" in result ? result.reason : ""}</Message>
        )}
      </div>
    </div>
  );
}

// ---- the screen -----------------------------------------------------------------------------------

export function AllowlistScreen() {
  const state = useRemote("allowlist.get", {}, ["allowlist.changed"]);
  const [selected, setSelected] = useState<string>("*");
  const [editor, setEditor] = useState<{ editing: EntryView | null } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [newAgent, setNewAgent] = useState("");
  const [extraAgents, setExtraAgents] = useState<string[]>([]);

  if (!state.data)
    return state.error ? <Message tone="error">{state.error}</Message> : <Loading what="the allowlist" />;
  const data = state.data;
  const agents: AgentView[] = [
    ...data.agents,
    ...extraAgents
      .filter((id) => !data.agents.some((a) => a.id === id))
      .map((id) => ({
        id,
        own: {},
        effective: data.agents[0]?.effective ?? {
          ...data.builtIn,
          sources: { security: "built-in", ask: "built-in", askFallback: "built-in" },
        },
        entries: [],
        inFile: false,
      })),
  ];
  const agent = agents.find((a) => a.id === selected) ?? agents[0] ?? null;
  const done = (message: string | null) => {
    setEditor(null);
    if (message) setNotice(message);
    state.reload();
  };

  return (
    <div className="screen">
      <h1>Allowlist</h1>
      <p className="muted">
        Saved in <span className="mono selectable">{data.file.path}</span>
        {data.file.status === "missing" ? " (created when you first change something)" : ""}
      </p>
      {data.file.status === "invalid" ? (
        <Message tone="error">
          {data.file.error} Every command is denied until the file is fixed; nothing here can change it
          meanwhile.
        </Message>
      ) : null}
      {notice ? (
        <Message tone="ok" live>
          {notice}
        </Message>
      ) : null}
      <Section title="Defaults">
        <p className="muted">Used by every agent that does not set its own.</p>
        <SettingsCard
          target="defaults"
          own={data.defaults}
          effective={null}
          builtIn={data.builtIn}
          defaults={data.defaults}
        />
      </Section>
      {data.file.status !== "invalid" && agent ? (
        <div className="split">
          <nav className="agent-list" aria-label="Agents">
            <ul>
              {agents.map((a) => (
                <li key={a.id}>
                  <button
                    type="button"
                    className={a.id === agent.id ? "agent-item active" : "agent-item"}
                    aria-current={a.id === agent.id ? "true" : undefined}
                    onClick={() => {
                      setSelected(a.id);
                      setEditor(null);
                      setNotice(null);
                    }}
                  >
                    <span>{agentLabel(a.id)}</span>
                    <span className="count">{a.entries.length}</span>
                  </button>
                </li>
              ))}
            </ul>
            <form
              className="add-agent"
              onSubmit={(e) => {
                e.preventDefault();
                const id = newAgent.trim();
                if (!id) return;
                setExtraAgents((x) => [...x, id]);
                setSelected(id);
                setNewAgent("");
              }}
            >
              <label htmlFor="new-agent" className="visually-hidden">
                Agent id
              </label>
              <input
                id="new-agent"
                placeholder="Other agent id"
                value={newAgent}
                onChange={(e) => setNewAgent(e.target.value)}
              />
              <button type="submit" className="button small">
                Add
              </button>
            </form>
          </nav>
          <div className="agent-detail">
            <Section title={`Settings for ${agentLabel(agent.id)}`}>
              <SettingsCard
                target={agent.id}
                own={agent.own}
                effective={agent.effective}
                builtIn={data.builtIn}
                defaults={data.defaults}
              />
            </Section>
            <Section
              title="Entries"
              actions={
                <button
                  type="button"
                  className="button"
                  onClick={() => setEditor({ editing: null })}
                  disabled={editor !== null}
                >
                  Add entry
                </button>
              }
            >
              {editor ? (
                <EntryEditor
                  key={editor.editing?.entry.id ?? "new"}
                  agentId={agent.id}
                  editing={editor.editing}
                  onDone={done}
                />
              ) : null}
              <EntriesTable
                agent={agent}
                now={data.now}
                onEdit={(view) => {
                  setNotice(null);
                  setEditor({ editing: view });
                }}
                onChanged={(message) => {
                  setNotice(message);
                  state.reload();
                }}
              />
            </Section>
            <Section title="Test a command">
              <TestBox agentId={agent.id} version={data.now} />
            </Section>
          </div>
        </div>
      ) : null}
    </div>
  );
}
