// The capability browser (ui.md "Capability browser"): tabs Skills / Plugins / MCP servers with counts,
// one search over name, description and tags, rows with source badge, status and version, a details
// pane, and the sync state with a progress bar. Updates live on sync progress and catalogue changes.
// Issue 16: a conflict or a failed item has actions (both paths, apply the last sync again, open folder),
// the running sync shows live progress and can be cancelled, empty states say what to do next, and
// long paths lose their middle, not their end.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import type {
  CapabilitiesState,
  CapabilityStatus,
  McpRow,
  PluginRow,
  RuntimeLink,
  SkillRow,
  SyncProgress,
} from "../../../src/ipc/contract.js";
import { call, useEvent, useRemote } from "../bridge.js";
import { Button } from "../components/buttons.js";
import {
  CopyText,
  Empty,
  KeyValue,
  Loading,
  Message,
  Notice,
  Pill,
  Section,
  type MessageTone,
  type Tone,
} from "../components/common.js";
import { TableScroll } from "../components/table.js";
import { PathText } from "../components/path-text.js";
import { plural } from "../words.js";
import { ProblemBox } from "./capabilities/item-problem.js";
import { SyncCard, type SyncProblem } from "./capabilities/sync-card.js";

type Tab = "skills" | "plugins" | "mcps";
type Row = SkillRow | PluginRow | McpRow;

const STATUS_TONE: Record<CapabilityStatus, Tone> = {
  synced: "good",
  ready: "good",
  conflict: "bad",
  failed: "bad",
  shadowed: "neutral",
  invalid: "bad",
  ineligible: "warn",
  disabled: "neutral",
};

function Badge(props: { source: string; label: string }) {
  return <span className={`badge badge-${props.source}`}>{props.label}</span>;
}

function matches(row: Row, words: string[]): boolean {
  if (words.length === 0) return true;
  const tags = "tags" in row ? row.tags.join(" ") : "";
  const description = "description" in row ? row.description : "";
  const hay = `${row.name} ${description} ${tags}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

function versionOf(row: Row): string {
  if ("namespace" in row && row.namespace)
    return row.version ? `${row.version} · ${row.namespace}` : row.namespace;
  if ("version" in row && row.version) return row.version;
  if ("transport" in row) return row.transport;
  return "";
}

function Links(props: { links: RuntimeLink[] }) {
  if (props.links.length === 0) return null;
  return (
    <ul className="plain-list">
      {props.links.map((link) => (
        <li key={link.path}>
          <span className="muted">{link.runtime === "claude" ? "Claude Code" : "Codex"}: </span>
          <CopyText text={link.path} label={`${link.runtime} path`} reveal={link.kind !== "missing"} path />
          <span className="muted">
            {link.kind === "link"
              ? " → "
              : link.kind === "copy"
                ? " (a copy of) "
                : link.kind === "missing"
                  ? " (missing)"
                  : " (the user's own item)"}
          </span>
          {link.target ? <PathText text={link.target} className="mono selectable" /> : null}
        </li>
      ))}
    </ul>
  );
}

function SkillDetails(props: { row: SkillRow }) {
  const r = props.row;
  return (
    <KeyValue
      rows={[
        ["Description", r.description || "—"],
        ["Source", r.sourceLabel],
        ["Status", r.statusDetail ?? r.status],
        ...(r.onDisk
          ? ([["Folder", <CopyText key="p" text={r.path} label="skill folder" reveal path />]] as Array<
              [string, ReactNode]
            >)
          : []),
        ...(r.realpath && r.realpath !== r.path
          ? ([
              ["Real folder", <CopyText key="rp" text={r.realpath} label="real folder" reveal path />],
            ] as Array<[string, ReactNode]>)
          : []),
        ...(r.storePath
          ? ([["Store", <CopyText key="s" text={r.storePath} label="store path" reveal path />]] as Array<
              [string, ReactNode]
            >)
          : []),
        ...(r.links.length
          ? ([["Runtime links", <Links key="l" links={r.links} />]] as Array<[string, ReactNode]>)
          : []),
        ["Eligible", r.eligible ? "yes" : r.reasons.length ? r.reasons.join("; ") : "no"],
        ...(r.errors.length ? ([["Errors", r.errors.join("; ")]] as Array<[string, string]>) : []),
        ...(r.warnings.length ? ([["Warnings", r.warnings.join("; ")]] as Array<[string, string]>) : []),
        ["Permissions", r.permissions.length ? r.permissions.join(", ") : "none requested"],
        ["Triggers", r.triggers.length ? r.triggers.join(", ") : "—"],
        ["Tags", r.tags.length ? r.tags.join(", ") : "—"],
        [
          "Prompt cost",
          r.costChars === null ? "—" : `${r.costChars} characters (about ${r.costTokens} tokens)`,
        ],
      ]}
    />
  );
}

function PluginDetails(props: { row: PluginRow }) {
  const r = props.row;
  return (
    <>
      <KeyValue
        rows={[
          ["Description", r.description || "—"],
          ["Key", <span key="k" className="mono">{`${r.name}@${r.marketplace}`}</span>],
          ...(r.claudeKey && r.claudeKey !== `${r.name}@${r.marketplace}`
            ? ([
                [
                  "Claude Code key",
                  <span key="c" className="mono">
                    {r.claudeKey}
                  </span>,
                ],
              ] as Array<[string, ReactNode]>)
            : []),
          ["Source", r.sourceLabel],
          ["Status", r.statusDetail ?? r.status],
          ["Enabled in Claude Code", r.enabled === null ? "not registered" : r.enabled ? "yes" : "no"],
          ["Scope", r.scope ?? "—"],
          ...(r.installPath
            ? ([
                ["Installed at", <CopyText key="i" text={r.installPath} label="install path" reveal path />],
              ] as Array<[string, ReactNode]>)
            : []),
          ...(r.storePath
            ? ([["Store", <CopyText key="s" text={r.storePath} label="store path" reveal path />]] as Array<
                [string, ReactNode]
              >)
            : []),
          ...(r.links.length
            ? ([["Runtime links", <Links key="l" links={r.links} />]] as Array<[string, ReactNode]>)
            : []),
        ]}
      />
      <h3 className="subheading">Skills in this plugin</h3>
      {r.skills.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <ul className="plain-list">
          {r.skills.map((s) => (
            <li key={s.path}>
              <strong>{s.name}</strong> <span className="muted">{s.description}</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function McpDetails(props: { row: McpRow }) {
  const r = props.row;
  return (
    <>
      <KeyValue
        rows={[
          ["Transport", r.transport],
          [
            r.transport === "stdio" ? "Command" : "URL",
            r.target ? (
              <span key="t" className="mono selectable">
                {r.target}
              </span>
            ) : (
              "—"
            ),
          ],
          ["Source", r.sourceLabel],
          ["Status", r.statusDetail ?? r.status],
        ]}
      />
      <h3 className="subheading">Definition (secrets masked)</h3>
      <pre className="code selectable">{JSON.stringify(r.server, null, 2)}</pre>
      <h3 className="subheading">Claude Code gets (project tasks, in its MCP config)</h3>
      <pre className="code selectable">
        {r.claude ? JSON.stringify({ [r.name]: r.claude }, null, 2) : "nothing"}
      </pre>
      <h3 className="subheading">Codex gets</h3>
      <pre className="code selectable">
        {r.codex.length ? r.codex.map((o) => `-c ${o}`).join("\n") : "nothing"}
      </pre>
      {r.notices.length ? <Message tone="warn">{r.notices.join(" ")}</Message> : null}
    </>
  );
}

/** Which tab a row id belongs to (`skill:…`, `plugin-sync:…`, `mcp:…`). */
function tabOf(rowId: string): Tab {
  if (rowId.startsWith("plugin")) return "plugins";
  if (rowId.startsWith("mcp")) return "mcps";
  return "skills";
}

/** The last sync's failed items, each with the row that shows it (Wegent's own row first). */
function syncProblems(data: CapabilitiesState): SyncProblem[] {
  const last = data.sync.last;
  if (!last) return [];
  const out: SyncProblem[] = [];
  const kinds: Array<[Row[], typeof last.skills]> = [
    [data.skills, last.skills],
    [data.plugins, last.plugins],
    [data.mcps, last.mcps],
  ];
  for (const [rows, results] of kinds) {
    for (const item of results.filter((r) => r.status === "failed")) {
      const candidates = rows.filter((r) => r.name === item.name && r.problem);
      const row = candidates.find((r) => r.source === "wegent-managed") ?? candidates[0];
      out.push({
        rowId: row?.id ?? null,
        name: item.name,
        kind: row?.problem?.kind ?? "failed",
        reason: item.error ?? "the last sync failed",
      });
    }
  }
  return out;
}

export function CapabilitiesScreen() {
  const [workspace, setWorkspace] = useState("");
  const [appliedWorkspace, setAppliedWorkspace] = useState("");
  const state = useRemote(
    "capabilities.get",
    appliedWorkspace ? { workspace: appliedWorkspace } : {},
    ["capabilities.changed"],
    appliedWorkspace,
  );
  const [tab, setTab] = useState<Tab>("skills");
  const [search, setSearch] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const [progress, setProgress] = useState<SyncProgress | null>(null);
  const [notice, setNotice] = useState<{ tone: MessageTone; text: string } | null>(null);
  const [requesting, setRequesting] = useState(false);
  const [focusProblem, setFocusProblem] = useState(false);
  const problemRef = useRef<HTMLElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  useEvent("capabilities.progress", (p) => {
    setProgress(p.phase === "done" ? null : p);
    if (p.outcome === "cancelled") setNotice({ tone: "info", text: "Sync cancelled: nothing was changed." });
  });

  const words = useMemo(() => search.toLowerCase().split(/\s+/).filter(Boolean), [search]);
  const lists = useMemo(() => {
    const d = state.data;
    return {
      skills: (d?.skills ?? []).filter((r) => matches(r, words)),
      plugins: (d?.plugins ?? []).filter((r) => matches(r, words)),
      mcps: (d?.mcps ?? []).filter((r) => matches(r, words)),
    };
  }, [state.data, words]);
  const rows: Row[] = lists[tab];
  const current = rows.find((r) => r.id === selected) ?? null;
  const live = progress ?? state.data?.sync.progress ?? null;
  const problems = useMemo(() => (state.data ? syncProblems(state.data) : []), [state.data]);
  const managedCount = useMemo(() => {
    const d = state.data;
    if (!d) return 0;
    return [...d.skills, ...d.plugins, ...d.mcps].filter((r) => r.source === "wegent-managed").length;
  }, [state.data]);
  useEffect(() => {
    if (focusProblem && current?.problem && problemRef.current) {
      problemRef.current.focus();
      setFocusProblem(false);
    }
  }, [focusProblem, current]);

  const requestSync = async () => {
    setRequesting(true);
    const result = await call("capabilities.requestSync", {}).catch((e: Error) => ({
      ok: false as const,
      reason: e.message,
    }));
    setRequesting(false);
    setNotice(result.ok ? { tone: "info", text: result.message } : { tone: "error", text: result.reason });
  };
  const cancelSync = async () => {
    const result = await call("capabilities.cancelSync", {}).catch((e: Error) => ({
      ok: false as const,
      reason: e.message,
    }));
    setNotice(result.ok ? { tone: "info", text: result.message } : { tone: "warn", text: result.reason });
  };
  const show = (rowId: string) => {
    const d = state.data;
    const row = d ? [...d.skills, ...d.plugins, ...d.mcps].find((r) => r.id === rowId) : undefined;
    if (row && !matches(row, words)) setSearch("");
    setTab(tabOf(rowId));
    setSelected(rowId);
    setFocusProblem(true);
  };
  const clearSearch = () => {
    setSearch("");
    searchRef.current?.focus();
  };
  useEffect(() => {
    if (selected && !rows.some((r) => r.id === selected)) setSelected(null);
  }, [rows, selected]);

  const choose = async () => {
    const picked = await call("app.pickFolder", { title: "Choose a workspace" }).catch(() => ({
      path: null,
    }));
    if (picked.path) {
      setWorkspace(picked.path);
      setAppliedWorkspace(picked.path);
    }
  };
  const tabs: Array<{ id: Tab; label: string }> = [
    { id: "skills", label: "Skills" },
    { id: "plugins", label: "Plugins" },
    { id: "mcps", label: "MCP servers" },
  ];
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const index = tabs.findIndex((t) => t.id === tab);
    const next = tabs[(index + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    if (next) {
      setTab(next.id);
      document.getElementById(`tab-${next.id}`)?.focus();
    }
  };

  return (
    <div className="screen">
      <h1>Capabilities</h1>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setAppliedWorkspace(workspace.trim());
        }}
      >
        <label htmlFor="workspace">Workspace</label>
        <input
          id="workspace"
          className="mono grow"
          value={workspace}
          placeholder="none: user, Codex, plugin and extra skills only"
          onChange={(e) => setWorkspace(e.target.value)}
        />
        <button type="button" className="button" onClick={() => void choose()}>
          Choose…
        </button>
        <button type="submit" className="button">
          Show
        </button>
      </form>
      {!state.data ? (
        state.error ? (
          <Message tone="error">{state.error}</Message>
        ) : (
          <Loading what="capabilities" />
        )
      ) : (
        <>
          {state.data.catalogueError ? <Message tone="error">{state.data.catalogueError}</Message> : null}
          <Notice tone={notice?.tone ?? "info"} text={notice?.text} />
          <SyncCard
            sync={state.data.sync}
            progress={live}
            problems={problems}
            managedCount={managedCount}
            requesting={requesting}
            onRequest={() => void requestSync()}
            onCancel={() => void cancelSync()}
            onShow={show}
            onSettings={() => {
              window.location.hash = "#settings";
            }}
          />
          <div className="browser">
            <div className="browser-list">
              <div className="tabs" role="tablist" aria-label="Kinds of capability">
                {tabs.map((t) => (
                  <button
                    key={t.id}
                    id={`tab-${t.id}`}
                    type="button"
                    role="tab"
                    className={tab === t.id ? "tab active" : "tab"}
                    aria-selected={tab === t.id}
                    aria-controls="capability-panel"
                    tabIndex={tab === t.id ? 0 : -1}
                    onClick={() => setTab(t.id)}
                    onKeyDown={onTabKey}
                  >
                    {t.label} <span className="count">{lists[t.id].length}</span>
                  </button>
                ))}
              </div>
              <label htmlFor="capability-search" className="visually-hidden">
                Search capabilities
              </label>
              <input
                id="capability-search"
                ref={searchRef}
                type="search"
                className="search"
                placeholder="Search name, description, tags"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
              <div id="capability-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
                {rows.length === 0 ? (
                  words.length ? (
                    <div className="empty-next">
                      <p>Nothing matches &ldquo;{search.trim()}&rdquo;.</p>
                      <Button small onClick={clearSearch}>
                        Clear the search
                      </Button>
                    </div>
                  ) : (
                    <Empty>
                      {tab === "skills"
                        ? "No skills here yet."
                        : tab === "plugins"
                          ? "No plugins here yet."
                          : "No MCP servers here yet."}{" "}
                      Wegent&apos;s arrive with a sync (see Sync above).
                    </Empty>
                  )
                ) : (
                  <ul className="rows" aria-label={tabs.find((t) => t.id === tab)?.label}>
                    {rows.map((row) => (
                      <li key={row.id}>
                        <button
                          type="button"
                          className={row.id === selected ? "row-button active" : "row-button"}
                          aria-pressed={row.id === selected}
                          onClick={() => setSelected(row.id)}
                        >
                          <span className="row-main">
                            <span className="row-name">{row.name}</span>
                            <span className="row-sub">
                              {"description" in row ? row.description : row.target}
                            </span>
                          </span>
                          <span className="row-meta">
                            <Badge source={row.source} label={row.sourceLabel} />
                            <Pill tone={STATUS_TONE[row.status]}>{row.status}</Pill>
                            <span className="row-version">{versionOf(row)}</span>
                          </span>
                        </button>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            </div>
            <aside className="details" aria-label="Details">
              {current ? (
                <>
                  <h2 className="details-title">
                    {current.name} <Pill tone={STATUS_TONE[current.status]}>{current.status}</Pill>
                  </h2>
                  {current.problem ? (
                    <ProblemBox
                      name={current.name}
                      problem={current.problem}
                      requesting={requesting}
                      onRequestSync={() => void requestSync()}
                      boxRef={problemRef}
                    />
                  ) : null}
                  {"skillFile" in current ? <SkillDetails row={current} /> : null}
                  {"marketplace" in current ? <PluginDetails row={current} /> : null}
                  {"transport" in current ? <McpDetails row={current} /> : null}
                </>
              ) : (
                <Empty>Select an item to see its details.</Empty>
              )}
            </aside>
          </div>
          {state.data.roots.length ? (
            <Section title="Skill folders">
              <p className="muted">
                {plural(state.data.index.count, "skill")} offered to agents, about{" "}
                {state.data.index.cost_tokens} tokens of prompt.
              </p>
              <TableScroll label="Skill folders">
                <table className="table" aria-label="Skill folders">
                  <thead>
                    <tr>
                      <th scope="col">Rank</th>
                      <th scope="col">Folder</th>
                      <th scope="col">Source</th>
                      <th scope="col">Skills</th>
                    </tr>
                  </thead>
                  <tbody>
                    {state.data.roots.map((root) => (
                      <tr key={`${root.rank}-${root.path}`}>
                        <td>{root.rank}</td>
                        <td className="mono">
                          <PathText text={root.path} />
                          {root.error ? <div className="cell-note warn-text">{root.error}</div> : null}
                          {!root.exists && !root.error ? (
                            <div className="cell-note">does not exist</div>
                          ) : null}
                        </td>
                        <td>{root.source}</td>
                        <td>{root.count}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            </Section>
          ) : null}
        </>
      )}
    </div>
  );
}
