// The check box (ui.md "Workdir settings"): type a path (and a task id), see where a command asking for
// it would run — the resolved folder, or why it falls back.
import { useState } from "react";
import type { PathCheck } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Message } from "../../components/common.js";
import { TextField } from "../../components/field.js";
import { useSettledAnswer } from "../../components/use-settled.js";
import { PathText } from "../../components/path-text.js";

function CheckResult(props: { result: PathCheck }) {
  const { result } = props;
  if (!result.ok) {
    return (
      <Message tone="warn">
        {result.message}
        {result.code ? <div className="muted">Reason: {result.code}</div> : null}
      </Message>
    );
  }
  return (
    <Message tone="ok">
      {result.message}
      {result.resolved ? (
        <div>
          Resolved path: <PathText className="mono selectable" text={result.resolved} />
        </div>
      ) : null}
    </Message>
  );
}

export function CheckBox() {
  const [path, setPath] = useState("");
  const [taskId, setTaskId] = useState("");
  const request = path.trim() === "" ? null : { path, ...(taskId.trim() ? { taskId: taskId.trim() } : {}) };
  const { answer } = useSettledAnswer(request, (r) => call("workdir.check", r), { pauseMs: 150 });
  return (
    <div className="check-box">
      <div className="editor-grid">
        <TextField
          id="check-path"
          label="Path"
          wide
          mono
          value={path}
          placeholder="~/Projects/app"
          onChange={setPath}
        />
        <TextField id="check-task" label="Task id (optional)" mono value={taskId} onChange={setTaskId} />
      </div>
      <div aria-live="polite" data-testid="check-result">
        {answer === null ? (
          <p className="muted">Type a folder to see where a command asking for it would run.</p>
        ) : (
          <CheckResult result={answer} />
        )}
      </div>
    </div>
  );
}
