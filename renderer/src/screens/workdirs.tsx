// Workdir settings (ui.md "Workdir settings", workdir.md §11): allowed roots (the workspace root always
// there, environment roots read-only, the user's roots added and removed here), task bindings,
// repository bindings, and a check box that shows how a path would resolve.
import { useState } from "react";
import type { PathCheck, RootInfo } from "../../../src/ipc/contract.js";
import { call, useDebounced, useLiveEffect, useRemote } from "../bridge.js";
import { CopyText, Empty, Loading, Message, Pill, Section } from "../components/common.js";
import { relativeTime } from "../words.js";

const ROOT_SOURCE: Record<RootInfo["source"], string> = {
  workspace: "Workspace root",
  env: "LOCAL_WORKDIR_ALLOWED_ROOTS",
  settings: "Added by you",
};

function RootRow(props: {
  root: RootInfo;
  onRemoved: (message: string) => void;
  onError: (m: string) => void;
}) {
  const r = props.root;
  const remove = async () => {
    const result = await call("workdir.removeRoot", { path: r.given });
    if (result.ok) props.onRemoved(`Removed ${r.given}.`);
    else props.onError(result.reason);
  };
  return (
    <tr className={r.status === "active" ? undefined : "inactive"}>
      <td className="mono wrap selectable">{r.given}</td>
      <td className="mono wrap">
        {r.realpath ? <CopyText text={r.realpath} label={`real path of ${r.given}`} reveal /> : "—"}
      </td>
      <td>{ROOT_SOURCE[r.source]}</td>
      <td>
        <Pill tone={r.status === "active" ? "good" : r.status === "merged" ? "neutral" : "bad"}>
          {r.status}
        </Pill>
        {r.reason ? <div className="cell-note">{r.reason}</div> : null}
      </td>
      <td className="actions">
        {r.source === "settings" ? (
          <button
            type="button"
            className="link-button danger"
            onClick={() => void remove()}
            aria-label={`Remove root ${r.given}`}
          >
            Remove
          </button>
        ) : (
          <span className="muted">
            {r.source === "workspace" ? "always allowed" : "set in the environment"}
          </span>
        )}
      </td>
    </tr>
  );
}

function CheckBox() {
  const [path, setPath] = useState("");
  const [taskId, setTaskId] = useState("");
  const settled = useDebounced({ path, taskId }, 150);
  const [result, setResult] = useState<PathCheck | null>(null);
  useLiveEffect(
    (live) => {
      if (settled.path.trim() === "") {
        setResult(null);
        return;
      }
      void call("workdir.check", {
        path: settled.path,
        ...(settled.taskId.trim() ? { taskId: settled.taskId.trim() } : {}),
      }).then((r) => live() && setResult(r));
    },
    [settled],
  );
  return (
    <div className="check-box">
      <div className="editor-grid">
        <div className="field wide">
          <label htmlFor="check-path">Path</label>
          <input
            id="check-path"
            className="mono"
            value={path}
            spellCheck={false}
            placeholder="~/Projects/app"
            onChange={(e) => setPath(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="check-task">Task id (optional)</label>
          <input
            id="check-task"
            className="mono"
            value={taskId}
            onChange={(e) => setTaskId(e.target.value)}
          />
        </div>
      </div>
      <div aria-live="polite" data-testid="check-result">
        {result === null ? (
          <p className="muted">Type a folder to see where a command asking for it would run.</p>
        ) : result.ok ? (
          <Message tone="ok">
            {result.message}
            {result.resolved ? (
              <div>
                Resolved path: <span className="mono selectable">{result.resolved}</span>
              </div>
            ) : null}
          </Message>
        ) : (
          <Message tone="warn">
            {result.message}
            {result.code ? <div className="muted">Reason: {result.code}</div> : null}
          </Message>
        )}
      </div>
    </div>
  );
}

export function WorkdirsScreen() {
  const state = useRemote("workdir.get", {}, ["workdir.changed"]);
  const [newRoot, setNewRoot] = useState("");
  const [rootProblem, setRootProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [repo, setRepo] = useState({ repo: "", branch: "", dir: "" });
  const [repoProblem, setRepoProblem] = useState<string | null>(null);

  if (!state.data)
    return state.error ? <Message tone="error">{state.error}</Message> : <Loading what="workdir settings" />;
  const d = state.data;

  const addRoot = async (given: string) => {
    setNotice(null);
    const result = await call("workdir.addRoot", { path: given });
    if (result.ok) {
      setRootProblem(null);
      setNewRoot("");
      setNotice(`Added ${given}.`);
      state.reload();
    } else setRootProblem(result.reason);
  };
  const choose = async (apply: (p: string) => void) => {
    const picked = await call("app.pickFolder", { title: "Choose a folder" }).catch(() => ({ path: null }));
    if (picked.path) apply(picked.path);
  };
  const addRepo = async () => {
    const result = await call("workdir.addRepo", {
      dir: repo.dir,
      ...(repo.repo.trim() ? { repo: repo.repo.trim() } : {}),
      ...(repo.branch.trim() ? { branch: repo.branch.trim() } : {}),
    });
    if (result.ok) {
      setRepoProblem(null);
      setRepo({ repo: "", branch: "", dir: "" });
      setNotice(`Linked ${result.binding.repo} (${result.binding.branch}) to ${result.binding.dir}.`);
      state.reload();
    } else setRepoProblem(result.reason);
  };

  return (
    <div className="screen">
      <h1>Workdirs</h1>
      <p className="muted">Tasks and commands may only work in folders under these roots.</p>
      {d.warnings.map((w) => (
        <Message key={w} tone="warn">
          {w}
        </Message>
      ))}
      {notice ? (
        <Message tone="ok" live>
          {notice}
        </Message>
      ) : null}
      <Section title="Allowed roots">
        <div className="table-wrap">
          <table className="table" aria-label="Allowed roots">
            <thead>
              <tr>
                <th scope="col">Root</th>
                <th scope="col">Real path</th>
                <th scope="col">From</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {d.roots.map((root) => (
                <RootRow
                  key={`${root.source}:${root.given}`}
                  root={root}
                  onRemoved={(m) => {
                    setNotice(m);
                    state.reload();
                  }}
                  onError={setRootProblem}
                />
              ))}
            </tbody>
          </table>
        </div>
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void addRoot(newRoot);
          }}
        >
          <label htmlFor="new-root">Add a root</label>
          <input
            id="new-root"
            className="mono grow"
            value={newRoot}
            spellCheck={false}
            placeholder="~/Projects"
            aria-invalid={Boolean(rootProblem)}
            aria-describedby="new-root-problem"
            onChange={(e) => {
              setNewRoot(e.target.value);
              setRootProblem(null);
            }}
          />
          <button type="button" className="button" onClick={() => void choose((p) => void addRoot(p))}>
            Choose…
          </button>
          <button type="submit" className="button primary" disabled={newRoot.trim() === ""}>
            Add
          </button>
        </form>
        <div id="new-root-problem" role="alert" className="field-error">
          {rootProblem ? `Not added: ${rootProblem}` : ""}
        </div>
      </Section>
      <Section title="Task bindings">
        {d.bindings.length === 0 ? (
          <Empty>No task has a working folder yet.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Task bindings">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Device</th>
                  <th scope="col">Workdir</th>
                  <th scope="col">Policy</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.bindings.map((b) => (
                  <tr key={`${b.task_id}/${b.device_id}`}>
                    <td className="mono">{b.task_id}</td>
                    <td className="mono wrap">{b.device_id}</td>
                    <td className="mono wrap">
                      {b.cwd}
                      {b.fallback ? <div className="cell-note">{b.fallback.message}</div> : null}
                    </td>
                    <td>
                      {b.policy_applied}
                      {b.policy !== b.policy_applied ? (
                        <span className="muted"> (asked: {b.policy})</span>
                      ) : null}
                    </td>
                    <td>{relativeTime(b.used_at)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="link-button danger"
                        aria-label={`Remove binding of task ${b.task_id}`}
                        onClick={() =>
                          void call("workdir.removeBinding", {
                            taskId: b.task_id,
                            deviceId: b.device_id,
                          }).then(state.reload)
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Section title="Repositories">
        {d.repos.length === 0 ? (
          <Empty>No repository is linked to a folder.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="table" aria-label="Repositories">
              <thead>
                <tr>
                  <th scope="col">Repository</th>
                  <th scope="col">Branch</th>
                  <th scope="col">Folder</th>
                  <th scope="col">From</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.repos.map((r) => (
                  <tr key={`${r.repo}#${r.branch}`}>
                    <td className="mono wrap">{r.repo}</td>
                    <td className="mono">{r.branch === "*" ? "any" : r.branch}</td>
                    <td className="mono wrap">{r.dir}</td>
                    <td>{r.origin === "learned" ? "learned from a task" : "added by you"}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="link-button danger"
                        aria-label={`Remove repository ${r.repo} ${r.branch}`}
                        onClick={() =>
                          void call("workdir.removeRepo", { repo: r.repo, branch: r.branch }).then(
                            state.reload,
                          )
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <form
          className="repo-form"
          onSubmit={(e) => {
            e.preventDefault();
            void addRepo();
          }}
        >
          <div className="editor-grid">
            <div className="field">
              <label htmlFor="repo-url">Git URL (optional)</label>
              <input
                id="repo-url"
                className="mono"
                value={repo.repo}
                spellCheck={false}
                onChange={(e) => setRepo({ ...repo, repo: e.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="repo-branch">Branch (optional)</label>
              <input
                id="repo-branch"
                className="mono"
                value={repo.branch}
                spellCheck={false}
                onChange={(e) => setRepo({ ...repo, branch: e.target.value })}
              />
            </div>
            <div className="field wide">
              <label htmlFor="repo-dir">Folder</label>
              <div className="input-with-button">
                <input
                  id="repo-dir"
                  className="mono"
                  value={repo.dir}
                  spellCheck={false}
                  onChange={(e) => setRepo({ ...repo, dir: e.target.value })}
                />
                <button
                  type="button"
                  className="button"
                  onClick={() => void choose((p) => setRepo((r) => ({ ...r, dir: p })))}
                >
                  Choose…
                </button>
              </div>
            </div>
          </div>
          <div className="button-row">
            <span className="field-error" role="alert">
              {repoProblem ?? ""}
            </span>
            <span className="spacer" />
            <button type="submit" className="button" disabled={repo.dir.trim() === ""}>
              Link repository
            </button>
          </div>
        </form>
      </Section>
      <Section title="Check a path">
        <CheckBox />
      </Section>
    </div>
  );
}
