// Repository bindings (ui.md "Workdir settings"): git URL and branch → folder, learned from tasks or
// added here; linking one needs only the folder (URL and branch are read from it when left out).
import { useState } from "react";
import type { RepoBinding } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Button, ChooseFolderButton, Form, LinkButton } from "../../components/buttons.js";
import { TextField } from "../../components/field.js";
import { actionsColumn, Table, type Column } from "../../components/table.js";
import { PathText } from "../../components/path-text.js";

function repoColumns(onRemoved: () => void): Array<Column<RepoBinding>> {
  return [
    { id: "repo", header: "Repository", className: "mono wrap", cell: (r) => r.repo },
    { id: "branch", header: "Branch", className: "mono", cell: (r) => (r.branch === "*" ? "any" : r.branch) },
    { id: "dir", header: "Folder", className: "mono wrap", cell: (r) => <PathText text={r.dir} /> },
    {
      id: "from",
      header: "From",
      cell: (r) => (r.origin === "learned" ? "learned from a task" : "added by you"),
    },
    actionsColumn((r) => (
      <LinkButton
        danger
        label={`Remove repository ${r.repo} ${r.branch}`}
        onClick={() => void call("workdir.removeRepo", { repo: r.repo, branch: r.branch }).then(onRemoved)}
      >
        Remove
      </LinkButton>
    )),
  ];
}

export function ReposTable(props: { repos: RepoBinding[]; onRemoved: () => void }) {
  return (
    <Table
      label="Repositories"
      columns={repoColumns(props.onRemoved)}
      rows={props.repos}
      rowKey={(r) => `${r.repo}#${r.branch}`}
      empty="No repository is linked to a folder."
    />
  );
}

const NO_REPO = { repo: "", branch: "", dir: "" };

export function LinkRepoForm(props: { onLinked: (message: string) => void }) {
  const [repo, setRepo] = useState(NO_REPO);
  const [problem, setProblem] = useState<string | null>(null);
  const set = (key: keyof typeof NO_REPO) => (value: string) => setRepo((r) => ({ ...r, [key]: value }));
  const link = async () => {
    const result = await call("workdir.addRepo", {
      dir: repo.dir,
      ...(repo.repo.trim() ? { repo: repo.repo.trim() } : {}),
      ...(repo.branch.trim() ? { branch: repo.branch.trim() } : {}),
    });
    if (result.ok) {
      setProblem(null);
      setRepo(NO_REPO);
      props.onLinked(`Linked ${result.binding.repo} (${result.binding.branch}) to ${result.binding.dir}.`);
    } else setProblem(result.reason);
  };
  return (
    <Form className="repo-form" onSubmit={() => void link()}>
      <div className="editor-grid">
        <TextField id="repo-url" label="Git URL (optional)" mono value={repo.repo} onChange={set("repo")} />
        <TextField
          id="repo-branch"
          label="Branch (optional)"
          mono
          value={repo.branch}
          onChange={set("branch")}
        />
        <TextField
          id="repo-dir"
          label="Folder"
          wide
          mono
          value={repo.dir}
          onChange={set("dir")}
          addon={<ChooseFolderButton title="Choose a folder" onPick={set("dir")} />}
        />
      </div>
      <div className="button-row">
        <span className="field-error" role="alert">
          {problem ?? ""}
        </span>
        <span className="spacer" />
        <Button submit disabled={repo.dir.trim() === ""}>
          Link repository
        </Button>
      </div>
    </Form>
  );
}
