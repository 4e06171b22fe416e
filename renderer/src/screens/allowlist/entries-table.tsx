// One list's entries (ui.md "Allowlist editor"): pattern, arguments, folder, limits, source, last use;
// filtered by words, sorted by a column; edit, duplicate and delete per row. Expired and used-up
// entries stay listed, greyed out. The folder an entry is limited to is a note under its program ("only
// in ~/Projects/**"), not a column of its own: a folder's names do not break, and as a seventh column it
// pushed the table wider than the editor at the window's usual size.
import { useMemo, useState } from "react";
import type { AgentView, EntryInput, EntryView } from "../../../../src/ipc/contract.js";
import { parseMcpPattern } from "../../../../src/shared/mcp-entry.js";
import { call } from "../../bridge.js";
import { LinkButton } from "../../components/buttons.js";
import { Empty, Notice, Pill } from "../../components/common.js";
import { matchesWords, searchWords, SearchField } from "../../components/field.js";
import { PathText } from "../../components/path-text.js";
import { actionsColumn, Table, type Column } from "../../components/table.js";
import { clock, relativeTime } from "../../words.js";
import { agentLabel } from "./labels.js";

function limitsText(view: EntryView, now: number): string {
  const parts: string[] = [];
  const e = view.entry;
  if (view.liveness === "expired") parts.push("expired");
  else if (e.expiresAt) parts.push(`expires ${relativeTime(e.expiresAt, now)}`);
  if (view.liveness === "used-up") parts.push("used up");
  else if (typeof e.usesLeft === "number") parts.push(`${e.usesLeft} uses left`);
  return parts.length ? parts.join(", ") : "none";
}

/** What an MCP entry covers, in words (nothing for a program entry). */
function McpNote(props: { pattern: string }) {
  const target = parseMcpPattern(props.pattern);
  if (!target) return null;
  return (
    <div className="cell-note">
      the MCP tool <span className="mono">{target.tool}</span> of the server{" "}
      <span className="mono">{target.server}</span>
    </div>
  );
}

const lower = (text: string | undefined) => (text ?? "").toLowerCase();
const orAny = (text: string | undefined) => text ?? <span className="muted">any</span>;

function entryColumns(now: number, actions: Column<EntryView>): Array<Column<EntryView>> {
  return [
    {
      id: "pattern",
      header: "Program or MCP tool",
      sortValue: (v) => lower(v.entry.pattern),
      cell: (v) => (
        <>
          <PathText className="mono selectable" text={v.entry.pattern} />
          <McpNote pattern={v.entry.pattern} />
          {v.entry.cwd ? (
            <div className="cell-note">
              only in <PathText className="mono selectable" text={v.entry.cwd} />
            </div>
          ) : null}
          {v.resolvesTo ? (
            <div className="cell-note">
              → <PathText text={v.resolvesTo} />
            </div>
          ) : null}
          {v.problem ? <div className="cell-note warn-text">{v.problem}</div> : null}
        </>
      ),
    },
    {
      id: "argPattern",
      header: "Arguments",
      className: "mono selectable",
      sortValue: (v) => lower(v.entry.argPattern),
      cell: (v) => orAny(v.entry.argPattern),
    },
    {
      id: "limits",
      header: "Limits",
      cell: (v) =>
        v.liveness !== "live" ? <Pill tone="neutral">{limitsText(v, now)}</Pill> : limitsText(v, now),
    },
    {
      id: "source",
      header: "Source",
      sortValue: (v) => lower(v.entry.source),
      cell: (v) => v.entry.source ?? "—",
    },
    {
      id: "lastUsed",
      header: "Last used",
      sortValue: (v) => v.entry.lastUsedAt ?? 0,
      cell: (v) => (
        <>
          <span title={v.entry.lastUsedAt ? clock(v.entry.lastUsedAt) : undefined}>
            {relativeTime(v.entry.lastUsedAt, now)}
          </span>
          {v.entry.lastUsedCommand ? <div className="cell-note mono">{v.entry.lastUsedCommand}</div> : null}
        </>
      ),
    },
    actions,
  ];
}

/** An entry as it can be added again (undo of a delete): what it covers and its limits. */
function inputOf(entry: EntryView["entry"]): EntryInput {
  return {
    pattern: entry.pattern,
    ...(entry.argPattern !== undefined ? { argPattern: entry.argPattern } : {}),
    ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
    ...(typeof entry.expiresAt === "number" ? { expiresAt: entry.expiresAt } : {}),
    ...(typeof entry.usesLeft === "number" ? { usesLeft: entry.usesLeft } : {}),
  };
}

function EntryActions(props: {
  view: EntryView;
  onEdit: (view: EntryView) => void;
  onChanged: (message: string, undo?: () => void) => void;
  onProblem: (message: string) => void;
}) {
  const { view } = props;
  const { pattern } = view.entry;
  const remove = async () => {
    const result = await call("allowlist.deleteEntry", { agentId: view.agentId, id: view.entry.id }).catch(
      (e: Error) => {
        props.onProblem(e.message);
        return null;
      },
    );
    if (!result) return;
    if (!result.removed) return props.onChanged("That entry was already gone.");
    const restore = async () => {
      const added = await call("allowlist.addEntry", { agentId: view.agentId, entry: inputOf(view.entry) });
      if (added.ok) props.onChanged(`Restored ${pattern}.`);
      else props.onProblem(added.reason);
    };
    props.onChanged(`Deleted ${pattern}.`, () => void restore());
  };
  const duplicate = async () => {
    const result = await call("allowlist.duplicateEntry", { agentId: view.agentId, id: view.entry.id });
    if (result.ok) props.onChanged(`Duplicated ${pattern}.`);
    else props.onProblem(result.reason);
  };
  return (
    <>
      <LinkButton onClick={() => props.onEdit(view)} label={`Edit ${pattern}`}>
        Edit
      </LinkButton>
      <LinkButton onClick={() => void duplicate()} label={`Duplicate ${pattern}`}>
        Duplicate
      </LinkButton>
      <LinkButton danger onClick={() => void remove()} label={`Delete ${pattern}`}>
        Delete
      </LinkButton>
    </>
  );
}

export function EntriesTable(props: {
  agent: AgentView;
  /** Main's clock when the list was read (limits and "last used" are relative to it). */
  now: number;
  onEdit: (view: EntryView) => void;
  /** An entry was changed here; what to tell the person, and how to take it back (a delete). */
  onChanged: (message: string, undo?: () => void) => void;
}) {
  const [filter, setFilter] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const { entries } = props.agent;
  const rows = useMemo(() => {
    const words = searchWords(filter);
    return entries.filter((v) => {
      const e = v.entry;
      return matchesWords(words, [e.pattern, e.argPattern, e.cwd, e.source, e.lastUsedCommand, v.resolvesTo]);
    });
  }, [entries, filter]);
  const columns = entryColumns(
    props.now,
    actionsColumn((view) => (
      <EntryActions view={view} onEdit={props.onEdit} onChanged={props.onChanged} onProblem={setProblem} />
    )),
  );

  return (
    <>
      <div className="toolbar">
        <SearchField
          id="entry-filter"
          label="Filter entries"
          placeholder="Filter entries"
          value={filter}
          onChange={setFilter}
        />
        <span className="muted">
          {rows.length} of {entries.length}
        </span>
      </div>
      <Notice tone="error" text={problem} />
      {entries.length === 0 ? (
        <Empty>
          No entries yet. Commands of this agent are covered only by the entries of all agents (*).
        </Empty>
      ) : (
        <Table
          label={`Allowlist entries of ${agentLabel(props.agent.id)}`}
          className="entries"
          columns={columns}
          rows={rows}
          rowKey={(v) => v.entry.id}
          rowClassName={(v) => (v.liveness !== "live" ? "inactive" : undefined)}
          rowData={(v) => ({ "data-entry-id": v.entry.id })}
          initialSort={{ column: "pattern", ascending: true }}
        />
      )}
    </>
  );
}
