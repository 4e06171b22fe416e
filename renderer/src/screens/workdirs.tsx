// Workdir settings (ui.md "Workdir settings", workdir.md §11): allowed roots (the workspace root always
// there, environment roots read-only, the user's roots added and removed here), task bindings,
// repository bindings, and a check box that shows how a path would resolve. The parts live in
// `workdirs/`.
import { useState } from "react";
import { useRemote } from "../bridge.js";
import { Loading, Message, Notice, Section } from "../components/common.js";
import { BindingsTable } from "./workdirs/bindings.js";
import { CheckBox } from "./workdirs/check-box.js";
import { LinkRepoForm, ReposTable } from "./workdirs/repos.js";
import { RootsSection } from "./workdirs/roots.js";

export function WorkdirsScreen() {
  const state = useRemote("workdir.get", {}, ["workdir.changed"]);
  const [notice, setNotice] = useState<string | null>(null);
  if (!state.data)
    return state.error ? <Message tone="error">{state.error}</Message> : <Loading what="workdir settings" />;
  const d = state.data;
  /** Something was changed here: say what (null: clear the last word) and read the state again. */
  const changed = (message: string | null) => {
    setNotice(message);
    if (message) state.reload();
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
      <Notice tone="ok" text={notice} />
      <Section title="Allowed roots">
        <RootsSection roots={d.roots} onChanged={changed} />
      </Section>
      <Section title="Task bindings">
        <BindingsTable bindings={d.bindings} onRemoved={state.reload} />
      </Section>
      <Section title="Repositories">
        <ReposTable repos={d.repos} onRemoved={state.reload} />
        <LinkRepoForm onLinked={changed} />
      </Section>
      <Section title="Check a path">
        <CheckBox />
      </Section>
    </div>
  );
}
