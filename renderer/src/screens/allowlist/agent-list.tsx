// The lists of the allowlist editor: all agents (*), the well-known agents and those in the file, each
// with its number of entries, and a box to add another agent id (its list exists once it holds
// something).
import { useState } from "react";
import type { AgentView, AllowlistState } from "../../../../src/ipc/contract.js";
import { Button, Form } from "../../components/buttons.js";
import { TextField } from "../../components/field.js";
import { agentLabel } from "./labels.js";

/** The agents in the file followed by the ids added here that the file does not have yet. */
export function withExtraAgents(data: AllowlistState, extra: readonly string[]): AgentView[] {
  const known = new Set(data.agents.map((a) => a.id));
  const effective = data.agents[0]?.effective ?? {
    ...data.builtIn,
    sources: { security: "built-in", ask: "built-in", askFallback: "built-in" },
  };
  return [
    ...data.agents,
    ...extra
      .filter((id) => !known.has(id))
      .map((id) => ({ id, own: {}, effective, entries: [], inFile: false })),
  ];
}

function AddAgent(props: { onAdd: (id: string) => void }) {
  const [id, setId] = useState("");
  return (
    <Form
      className="add-agent"
      onSubmit={() => {
        const trimmed = id.trim();
        if (!trimmed) return;
        props.onAdd(trimmed);
        setId("");
      }}
    >
      <TextField
        id="new-agent"
        label="Agent id"
        hideLabel
        layout="inline"
        placeholder="Other agent id"
        value={id}
        onChange={setId}
      />
      <Button submit small>
        Add
      </Button>
    </Form>
  );
}

export function AgentList(props: {
  agents: readonly AgentView[];
  selected: string;
  onSelect: (id: string) => void;
  onAdd: (id: string) => void;
}) {
  return (
    <nav className="agent-list" aria-label="Agents">
      <ul>
        {props.agents.map((a) => (
          <li key={a.id}>
            <button
              type="button"
              className={a.id === props.selected ? "agent-item active" : "agent-item"}
              aria-current={a.id === props.selected ? "true" : undefined}
              onClick={() => props.onSelect(a.id)}
            >
              <span>{agentLabel(a.id)}</span>
              <span className="count">{a.entries.length}</span>
            </button>
          </li>
        ))}
      </ul>
      <AddAgent onAdd={props.onAdd} />
    </nav>
  );
}
