// A conflict or a failed item in the details pane (issue 16): what went wrong, both paths of a conflict
// (the user's item, left as it is, and Gatehouse's copy in its store), and what can be done: request
// the last sync again, open either folder. The user's item is never offered for removal or overwriting.
// What happened and what to do is main's wording (capability-problems.ts), one home for both.
import { useState, type Ref } from "react";
import type { ItemProblem, ProblemPath } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Button } from "../../components/buttons.js";
import { CopyButton, Notice } from "../../components/common.js";
import { PathText } from "../../components/path-text.js";

const RUNTIME_WORDS = { claude: "Claude Code", codex: "Codex" } as const;

function pathLabel(p: ProblemPath, kind: ItemProblem["kind"]): string {
  if (p.role === "ours")
    return p.exists
      ? "Gatehouse's copy, in its store"
      : kind === "conflict"
        ? "Gatehouse's copy would go here (not downloaded: the sync stopped at the conflict)"
        : "Gatehouse's copy would go here (not installed: the sync of this item failed)";
  return `Yours, where ${p.runtime ? RUNTIME_WORDS[p.runtime] : "the agent"} looks (left as it is)`;
}

/** "Open folder" through main, which opens only paths it showed and never runs anything. */
export function OpenFolderButton(props: {
  path: string;
  label: string;
  onResult: (text: string | null) => void;
}) {
  const open = async () => {
    const result = await call("capabilities.openFolder", { path: props.path }).catch((e: Error) => ({
      ok: false as const,
      reason: e.message,
    }));
    props.onResult(result.ok ? null : result.reason);
  };
  return (
    <Button small onClick={() => void open()} label={`Open folder: ${props.label}`}>
      Open folder
    </Button>
  );
}

export function ProblemBox(props: {
  name: string;
  problem: ItemProblem;
  onRequestSync: () => void;
  requesting: boolean;
  boxRef?: Ref<HTMLElement>;
}) {
  const { problem } = props;
  const [openProblem, setOpenProblem] = useState<string | null>(null);
  const conflict = problem.kind === "conflict";
  const headingId = "problem-heading";
  return (
    <section className="problem-box" aria-labelledby={headingId} ref={props.boxRef} tabIndex={-1}>
      <h3 id={headingId}>
        {conflict
          ? `Conflict: your own item is where ${props.name} would go`
          : `${props.name} failed to sync`}
      </h3>
      <p>{problem.whatToDo}</p>
      <p className="muted">
        Reported to the backend: <span className="selectable">{problem.reason}</span>
      </p>
      {problem.paths.length ? (
        <ul className="problem-paths" aria-label={conflict ? "Both paths" : "Paths"}>
          {problem.paths.map((p) => (
            <li key={`${p.role}-${p.path}`}>
              <span className="problem-path-label">{pathLabel(p, problem.kind)}</span>
              <PathText text={p.path} className="mono selectable" />
              <span className="button-row">
                <CopyButton text={p.path} label={p.path} />
                {p.exists ? (
                  <OpenFolderButton path={p.path} label={p.path} onResult={setOpenProblem} />
                ) : null}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="button-row">
        <Button onClick={props.onRequestSync} disabled={props.requesting}>
          Apply the last sync again
        </Button>
      </div>
      <Notice tone="error" text={openProblem} />
    </section>
  );
}
