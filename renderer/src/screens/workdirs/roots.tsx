// Allowed roots (ui.md "Workdir settings"): the workspace root (always there), roots from
// LOCAL_WORKDIR_ALLOWED_ROOTS (read-only here) and the person's own (added by path or folder picker,
// removed); each with its real path and why it is refused or merged.
import { useState } from "react";
import type { RootInfo } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Button, ChooseFolderButton, Form, LinkButton } from "../../components/buttons.js";
import { CopyText, Pill } from "../../components/common.js";
import { TextField } from "../../components/field.js";
import { actionsColumn, Table, type Column } from "../../components/table.js";
import { PathText } from "../../components/path-text.js";

const ROOT_SOURCE: Record<RootInfo["source"], string> = {
  workspace: "Workspace root",
  env: "LOCAL_WORKDIR_ALLOWED_ROOTS",
  settings: "Added by you",
};

const STATUS_TONE = { active: "good", merged: "neutral", refused: "bad" } as const;

function RootAction(props: { root: RootInfo; onRemove: (root: RootInfo) => void }) {
  const r = props.root;
  if (r.source === "settings") {
    return (
      <LinkButton danger onClick={() => props.onRemove(r)} label={`Remove root ${r.given}`}>
        Remove
      </LinkButton>
    );
  }
  return (
    <span className="muted">{r.source === "workspace" ? "always allowed" : "set in the environment"}</span>
  );
}

function rootColumns(onRemove: (root: RootInfo) => void): Array<Column<RootInfo>> {
  return [
    {
      id: "root",
      header: "Root",
      className: "mono wrap selectable",
      cell: (r) => <PathText text={r.given} />,
    },
    {
      id: "realpath",
      header: "Real path",
      className: "mono wrap",
      cell: (r) =>
        r.realpath ? <CopyText text={r.realpath} label={`real path of ${r.given}`} reveal path /> : "—",
    },
    { id: "from", header: "From", cell: (r) => ROOT_SOURCE[r.source] },
    {
      id: "status",
      header: "Status",
      cell: (r) => (
        <>
          <Pill tone={STATUS_TONE[r.status]}>{r.status}</Pill>
          {r.reason ? <div className="cell-note">{r.reason}</div> : null}
        </>
      ),
    },
    actionsColumn((r) => <RootAction root={r} onRemove={onRemove} />),
  ];
}

/** Typing a root or picking one; a refusal is shown (and announced) under the form. */
function AddRootForm(props: {
  onAdd: (given: string) => Promise<boolean>;
  problem: string | null;
  onEdit: () => void;
}) {
  const [given, setGiven] = useState("");
  const add = async (path: string) => {
    if (await props.onAdd(path)) setGiven("");
  };
  return (
    <>
      <Form className="toolbar" onSubmit={() => void add(given)}>
        <TextField
          id="new-root"
          label="Add a root"
          layout="inline"
          mono
          grow
          value={given}
          placeholder="~/Projects"
          error={props.problem}
          describedBy="new-root-problem"
          onChange={(text) => {
            setGiven(text);
            props.onEdit();
          }}
        />
        <ChooseFolderButton title="Choose a folder" onPick={(path) => void add(path)} />
        <Button submit kind="primary" disabled={given.trim() === ""}>
          Add
        </Button>
      </Form>
      <div id="new-root-problem" role="alert" className="field-error">
        {props.problem ?? ""}
      </div>
    </>
  );
}

export function RootsSection(props: { roots: RootInfo[]; onChanged: (message: string | null) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (given: string): Promise<boolean> => {
    props.onChanged(null);
    const result = await call("workdir.addRoot", { path: given });
    setProblem(result.ok ? null : `Not added: ${result.reason}`);
    if (result.ok) props.onChanged(`Added ${given}.`);
    return result.ok;
  };
  const remove = async (root: RootInfo) => {
    const result = await call("workdir.removeRoot", { path: root.given });
    setProblem(result.ok ? null : `Not removed: ${result.reason}`);
    if (result.ok) props.onChanged(`Removed ${root.given}.`);
  };
  return (
    <>
      <Table
        label="Allowed roots"
        columns={rootColumns((root) => void remove(root))}
        rows={props.roots}
        rowKey={(r) => `${r.source}:${r.given}`}
        rowClassName={(r) => (r.status === "active" ? undefined : "inactive")}
      />
      <AddRootForm onAdd={add} problem={problem} onEdit={() => setProblem(null)} />
    </>
  );
}
