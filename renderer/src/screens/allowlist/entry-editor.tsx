// Adding or editing one allowlist entry: what it covers and its limits, validated by main as it is
// typed (the reason next to the field), the audit preview, and a save that cannot happen while the
// entry is invalid or not yet checked.
import { useState } from "react";
import type { EntryField, EntryProblem, EntryView } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Button, Form } from "../../components/buttons.js";
import { Notice } from "../../components/common.js";
import { EntryPatternFields, useEntryCheck } from "../../components/entry-fields.js";
import { TextField } from "../../components/field.js";
import { SelectField } from "../../components/select.js";
import { AuditPreviewList, useAuditPreview } from "./audit-preview.js";
import { coveredOf, draftOf, parseDraft, type Draft } from "./draft.js";
import { agentLabel } from "./labels.js";

function LimitFields(props: {
  draft: Draft;
  onChange: (next: Partial<Draft>) => void;
  error: (field: EntryField) => string | null;
}) {
  return (
    <>
      <TextField
        id="entry-expires"
        label="Expires"
        type="datetime-local"
        value={props.draft.expires}
        onChange={(expires) => props.onChange({ expires })}
        error={props.error("expiresAt")}
        note="Empty: never."
      />
      <TextField
        id="entry-uses"
        label="Uses left"
        inputMode="numeric"
        value={props.draft.uses}
        onChange={(uses) => props.onChange({ uses })}
        error={props.error("usesLeft")}
        note="Empty: unlimited."
      />
    </>
  );
}

/** Server and tool of an MCP entry, with main's reason under the tool. */
function McpFields(props: {
  draft: Draft;
  onChange: (next: Partial<Draft>) => void;
  error: string | null;
  note: string | null;
}) {
  return (
    <>
      <TextField
        id="entry-server"
        label="MCP server"
        mono
        value={props.draft.server}
        onChange={(server) => props.onChange({ server })}
        placeholder="docs"
        note="As the agent's MCP configuration names it."
        autoFocus
      />
      <TextField
        id="entry-tool"
        label="Tool"
        mono
        value={props.draft.tool}
        onChange={(tool) => props.onChange({ tool })}
        placeholder="search"
        error={props.error}
        note={props.note}
      />
    </>
  );
}

/** What the summary calls each field (as its label says). */
const FIELD_WORDS: Record<EntryField, string> = {
  pattern: "Program",
  argPattern: "Arguments",
  cwd: "Folders",
  expiresAt: "Expires",
  usesLeft: "Uses left",
};

/** The fields in the order the form shows them (the summary lists problems in this order). */
const FIELD_ORDER = Object.keys(FIELD_WORDS) as EntryField[];

/**
 * Every problem of the entry at once, by field (each reason also sits under its field, which
 * `aria-describedby` ties to it); plain text, so a field's label stays the only thing named after it.
 */
function ProblemSummary(props: { problems: EntryProblem[]; mcp: boolean }) {
  const { problems } = props;
  const words = (field: EntryField) => (props.mcp && field === "pattern" ? "Tool" : FIELD_WORDS[field]);
  return (
    <div aria-live="polite">
      {problems.length ? (
        <div className="error-summary" data-testid="entry-problems">
          <p>
            {problems.length === 1
              ? "This entry cannot be saved yet: one problem."
              : `This entry cannot be saved yet: ${problems.length} problems.`}
          </p>
          <ul>
            {problems.map((p) => (
              <li key={p.field}>
                {words(p.field)}: {p.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

export function EntryEditor(props: {
  agentId: string;
  /** The entry being edited, or null for a new one. */
  editing: EntryView | null;
  /** Closes the editor, with what to tell the person (null: cancelled). */
  onDone: (message: string | null) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(props.editing));
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const parsed = parseDraft(draft);
  const entry = parsed.ok ? parsed.entry : null;
  // Main checks what the pattern fields say even while a limit field is wrong, so every problem shows at once.
  const checked = useEntryCheck(entry ?? coveredOf(draft), props.agentId);
  // Nothing is called wrong before the person has typed anything.
  const [edited, setEdited] = useState(props.editing !== null);
  const preview = useAuditPreview(entry, props.agentId, props.editing?.entry.id);
  const check = checked.answer;
  const valid = parsed.ok && checked.current && check !== null && check.ok;

  // Every problem at once: the limits the editor could not read, then what main refuses.
  const problems: EntryProblem[] = edited
    ? [...(parsed.ok ? [] : parsed.problems), ...(check?.problems ?? [])].sort(
        (x, y) => FIELD_ORDER.indexOf(x.field) - FIELD_ORDER.indexOf(y.field),
      )
    : [];
  const fieldError = (field: EntryField): string | null =>
    problems.find((p) => p.field === field)?.reason ?? null;

  const save = async () => {
    if (!parsed.ok) return;
    setSaving(true);
    try {
      const result = props.editing
        ? await call("allowlist.updateEntry", {
            agentId: props.agentId,
            id: props.editing.entry.id,
            entry: parsed.entry,
          })
        : await call("allowlist.addEntry", { agentId: props.agentId, entry: parsed.entry });
      if (result.ok) props.onDone(props.editing ? "Entry saved." : "Entry added.");
      else setSaveError(result.reason);
    } catch (error) {
      setSaveError((error as Error).message);
    } finally {
      setSaving(false);
    }
  };

  const change = (next: Partial<Draft>) => {
    setSaveError(null);
    setEdited(true);
    setDraft((d) => ({ ...d, ...next }));
  };

  return (
    <Form
      className="entry-editor"
      label={props.editing ? "Edit allowlist entry" : "New allowlist entry"}
      onSubmit={() => {
        if (valid) void save();
      }}
    >
      <h3>{props.editing ? "Edit entry" : `New entry for ${agentLabel(props.agentId)}`}</h3>
      <div className="editor-grid">
        <SelectField
          id="entry-covers"
          label="Covers"
          value={draft.covers}
          choices={[
            { value: "program", label: "A program" },
            { value: "mcp", label: "A tool of an MCP server" },
          ]}
          onChange={(value) => change({ covers: value === "mcp" ? "mcp" : "program" })}
        />
        {draft.covers === "mcp" ? (
          <McpFields
            draft={draft}
            onChange={change}
            error={fieldError("pattern")}
            note={check?.notes.join(" ") ?? null}
          />
        ) : (
          <EntryPatternFields
            idPrefix="entry"
            value={draft}
            onChange={change}
            check={edited ? check : null}
            autoFocus
          />
        )}
        <LimitFields draft={draft} onChange={change} error={fieldError} />
      </div>
      <ProblemSummary problems={problems} mcp={draft.covers === "mcp"} />
      <AuditPreviewList preview={preview} />
      <Notice tone="error" text={saveError} />
      <div className="button-row">
        <span className="spacer" />
        <Button onClick={() => props.onDone(null)}>Cancel</Button>
        <Button submit kind="primary" disabled={!valid || saving}>
          {props.editing ? "Save entry" : "Add entry"}
        </Button>
      </div>
    </Form>
  );
}
