// The allowlist editor (ui.md "Allowlist editor"): effective settings per agent with `*` and defaults,
// the entries table (add, edit, delete, duplicate, sort, filter), validation as you type, the test box
// with the live explanation, and the audit preview. Every change is written at once by main; edits
// made elsewhere arrive through the `allowlist.changed` event. The parts live in `allowlist/`.
import { useState } from "react";
import type { AgentView, AllowlistState, EntryView } from "../../../src/ipc/contract.js";
import { useRemote } from "../bridge.js";
import { Button } from "../components/buttons.js";
import { Loading, Message, Section } from "../components/common.js";
import { PathText } from "../components/path-text.js";
import { AgentList, withExtraAgents } from "./allowlist/agent-list.js";
import { EntriesTable } from "./allowlist/entries-table.js";
import { EntryEditor } from "./allowlist/entry-editor.js";
import { agentLabel } from "./allowlist/labels.js";
import { SettingsCard } from "./allowlist/settings-card.js";
import { TestBox } from "./allowlist/test-box.js";

/** Where the list is kept, and why nothing can be changed while the file is invalid. */
function FileLine(props: { file: AllowlistState["file"] }) {
  const { file } = props;
  return (
    <>
      <p className="muted">
        Saved in <PathText className="mono selectable" text={file.path} />
        {file.status === "missing" ? " (created when you first change something)" : ""}
      </p>
      {file.status === "invalid" ? (
        <Message tone="error">
          {file.error} Every command is denied until the file is fixed; nothing here can change it meanwhile.
        </Message>
      ) : null}
    </>
  );
}

/** The entry editor, when open: a new entry (`editing: null`) or an existing one. */
type EditorState = { editing: EntryView | null } | null;

/** One agent's settings, entries (with the editor open above them) and the test box. */
function AgentDetail(props: {
  agent: AgentView;
  data: AllowlistState;
  editor: EditorState;
  setEditor: (editor: EditorState) => void;
  onNotice: (message: string | null, undo?: () => void) => void;
  reload: () => void;
}) {
  const { agent, data, editor, setEditor } = props;
  const done = (message: string | null) => {
    setEditor(null);
    if (message) props.onNotice(message);
    props.reload();
  };
  return (
    <div className={agent.id === "*" ? "agent-detail scope-card scope-card-all" : "agent-detail"}>
      {agent.id === "*" ? (
        <p className="scope-card-kind">
          All agents (*): these settings override Defaults, and these entries let every agent run what they
          cover
        </p>
      ) : null}
      <Section title={`Settings for ${agentLabel(agent.id)}`}>
        <SettingsCard target={agent.id} own={agent.own} effective={agent.effective} builtIn={data.builtIn} />
      </Section>
      <Section
        title="Entries"
        actions={
          <Button onClick={() => setEditor({ editing: null })} disabled={editor !== null}>
            Add entry
          </Button>
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
            props.onNotice(null);
            setEditor({ editing: view });
          }}
          onChanged={(message, undo) => {
            props.onNotice(message, undo);
            props.reload();
          }}
        />
      </Section>
      <Section title="Test a command">
        <TestBox agentId={agent.id} version={data.now} />
      </Section>
    </div>
  );
}

function AllowlistEditor(props: { data: AllowlistState; reload: () => void }) {
  const { data } = props;
  const [selected, setSelected] = useState<string>("*");
  const [notice, setNoticeState] = useState<{ text: string; undo?: () => void } | null>(null);
  const setNotice = (text: string | null, undo?: () => void) =>
    setNoticeState(text === null ? null : { text, ...(undo ? { undo } : {}) });
  const [editor, setEditor] = useState<EditorState>(null);
  const [extraAgents, setExtraAgents] = useState<string[]>([]);
  const agents = withExtraAgents(data, extraAgents);
  const agent = agents.find((a) => a.id === selected) ?? agents[0] ?? null;
  return (
    <div className="screen">
      <h1>Allowlist</h1>
      <FileLine file={data.file} />
      {notice ? (
        <Message tone="ok" live>
          {notice.text}{" "}
          {notice.undo ? (
            <Button small onClick={notice.undo}>
              Undo
            </Button>
          ) : null}
        </Message>
      ) : null}
      <Section title="Defaults" id="section-defaults">
        <div className="scope-card scope-card-defaults">
          <p className="scope-card-kind">Settings only: no entries</p>
          <p className="muted">
            The fallback settings: an agent (or All agents) that does not set its own uses these.
          </p>
          <SettingsCard target="defaults" own={data.defaults} effective={null} builtIn={data.builtIn} />
        </div>
      </Section>
      {data.file.status !== "invalid" && agent ? (
        <div className="split">
          <AgentList
            agents={agents}
            selected={agent.id}
            onSelect={(id) => {
              setSelected(id);
              setEditor(null);
              setNotice(null);
            }}
            onAdd={(id) => {
              setExtraAgents((x) => [...x, id]);
              setSelected(id);
            }}
          />
          <AgentDetail
            agent={agent}
            data={data}
            editor={editor}
            setEditor={setEditor}
            onNotice={setNotice}
            reload={props.reload}
          />
        </div>
      ) : null}
    </div>
  );
}

export function AllowlistScreen() {
  const state = useRemote("allowlist.get", {}, ["allowlist.changed"]);
  if (!state.data)
    return state.error ? <Message tone="error">{state.error}</Message> : <Loading what="the allowlist" />;
  return <AllowlistEditor data={state.data} reload={state.reload} />;
}
