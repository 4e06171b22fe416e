// Task bindings (ui.md "Workdir settings"): which folder each task works in, under which policy, and
// why it fell back when it did; a binding can be removed (the task gets a folder again when it next asks).
import type { TaskBinding } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { LinkButton } from "../../components/buttons.js";
import { actionsColumn, Table, type Column } from "../../components/table.js";
import { relativeTime } from "../../words.js";
import { PathText } from "../../components/path-text.js";

function bindingColumns(onRemoved: () => void): Array<Column<TaskBinding>> {
  return [
    { id: "task", header: "Task", className: "mono", cell: (b) => b.task_id },
    { id: "device", header: "Device", className: "mono wrap", cell: (b) => b.device_id },
    {
      id: "workdir",
      header: "Workdir",
      className: "mono wrap",
      cell: (b) => (
        <>
          <PathText text={b.cwd} />
          {b.fallback ? <div className="cell-note">{b.fallback.message}</div> : null}
        </>
      ),
    },
    {
      id: "policy",
      header: "Policy",
      cell: (b) => (
        <>
          {b.policy_applied}
          {b.policy !== b.policy_applied ? <span className="muted"> (asked: {b.policy})</span> : null}
        </>
      ),
    },
    { id: "used", header: "Last used", cell: (b) => relativeTime(b.used_at) },
    actionsColumn((b) => (
      <LinkButton
        danger
        label={`Remove binding of task ${b.task_id}`}
        onClick={() =>
          void call("workdir.removeBinding", { taskId: b.task_id, deviceId: b.device_id }).then(onRemoved)
        }
      >
        Remove
      </LinkButton>
    )),
  ];
}

export function BindingsTable(props: { bindings: TaskBinding[]; onRemoved: () => void }) {
  return (
    <Table
      label="Task bindings"
      columns={bindingColumns(props.onRemoved)}
      rows={props.bindings}
      rowKey={(b) => `${b.task_id}/${b.device_id}`}
      empty="No task has a working folder yet."
    />
  );
}
