// Scope you can see (issue 16): what each entry "Allow always" would save covers — which program, which
// arguments, which folder, which agents — with the wide parts called out, and one click to narrow it to
// these exact arguments or this folder. The fields are the allowlist editor's, checked by main as typed.
import { useEffect, type ReactNode } from "react";
import type { PromptView } from "../../../../src/ipc/contract.js";
import { parseMcpPattern } from "../../../../src/shared/mcp-entry.js";
import {
  EntryPatternFields,
  entryOfPatterns,
  useEntryCheck,
  type EntryPatterns,
} from "../../components/entry-fields.js";
import { SelectField, type Choice } from "../../components/select.js";
import { PathText } from "../../components/path-text.js";

export interface DraftEntry extends EntryPatterns {
  segment: number;
  /** Covers for this long from the decision; null: until removed. */
  expiresInMinutes: number | null;
  /** Covers this many more runs; null: any number. */
  usesLeft: number | null;
}

const EXPIRY_CHOICES: readonly Choice[] = [
  { value: "", label: "Never (until you remove it)" },
  { value: "60", label: "In 1 hour" },
  { value: "480", label: "In 8 hours" },
  { value: "1440", label: "In 1 day" },
  { value: "10080", label: "In 7 days" },
  { value: "43200", label: "In 30 days" },
];

const USES_CHOICES: readonly Choice[] = [
  { value: "", label: "Any number of runs" },
  { value: "1", label: "1 more run" },
  { value: "2", label: "2 more runs" },
  { value: "5", label: "5 more runs" },
  { value: "10", label: "10 more runs" },
  { value: "50", label: "50 more runs" },
];

/** What the dialog sends for a draft (prompts.decide `entries`). */
export function confirmedOf(draft: DraftEntry) {
  const { pattern, argPattern, cwd } = entryOfPatterns(draft);
  return {
    segment: draft.segment,
    pattern,
    ...(argPattern !== undefined ? { argPattern } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(draft.expiresInMinutes !== null ? { expiresInMinutes: draft.expiresInMinutes } : {}),
    ...(draft.usesLeft !== null ? { usesLeft: draft.usesLeft } : {}),
  };
}

function durationWords(minutes: number): string {
  return (
    EXPIRY_CHOICES.find((c) => c.value === String(minutes))?.label.replace(/^In /, "") ?? `${minutes} minutes`
  );
}

/** The proposed entries, narrowed to this folder; to these exact arguments too when `exactArgs`. */
export function draftsOf(prompt: PromptView, exactArgs: boolean): DraftEntry[] {
  return prompt.explanation.proposedEntries.map((e) => ({
    segment: e.segment,
    pattern: e.pattern,
    ...(parseMcpPattern(e.pattern)
      ? // an MCP entry covers one tool of one server: it has no arguments or folder to narrow
        { argPattern: "", cwd: "" }
      : {
          argPattern: e.argPattern ?? (exactArgs ? (prompt.narrowing.exactArgPatterns[e.segment] ?? "") : ""),
          cwd: prompt.narrowing.cwdPattern,
        }),
    expiresInMinutes: null,
    usesLeft: null,
  }));
}

const GLOB = /[*?[\]{}]/;

/** Whose allowlist the entry goes to: an unproven request's grant is saved for every agent (gate.ts). */
function savedFor(prompt: PromptView): string {
  return prompt.explanation.identity === "unproven" ? "*" : prompt.agentId;
}

function ScopeLine(props: { label: string; wide: boolean; children: ReactNode }) {
  return (
    <li className={props.wide ? "scope-wide" : undefined}>
      <span className="scope-label">{props.label}:</span> {props.children}
    </li>
  );
}

/** In words, what an entry would let run without asking. */
function ScopeSummary(props: { draft: DraftEntry; agentId: string; program: string }) {
  const { draft } = props;
  return (
    <ul className="scope" aria-label="What this entry allows">
      <ScopeLine label="Program" wide={GLOB.test(draft.pattern)}>
        {GLOB.test(draft.pattern) ? "any program matching " : "only "}
        <PathText className="mono" text={draft.pattern} />
      </ScopeLine>
      <ScopeLine label="Arguments" wide={draft.argPattern === ""}>
        {draft.argPattern === ""
          ? `any arguments: ${props.program} could run with other files and options without asking`
          : `only arguments matching ${draft.argPattern}`}
      </ScopeLine>
      <ScopeLine label="Folder" wide={draft.cwd.trim() === ""}>
        {draft.cwd.trim() === "" ? (
          "any folder"
        ) : (
          <>
            only in <PathText className="mono" text={draft.cwd} />
          </>
        )}
      </ScopeLine>
      <ScopeLine label="For how long" wide={draft.expiresInMinutes === null}>
        {draft.expiresInMinutes === null
          ? "until you remove it"
          : `for ${durationWords(draft.expiresInMinutes)} from now, then it asks again`}
      </ScopeLine>
      <ScopeLine label="How many runs" wide={draft.usesLeft === null}>
        {draft.usesLeft === null
          ? "any number"
          : `the next ${draft.usesLeft === 1 ? "run" : `${draft.usesLeft} runs`}, then it asks again`}
      </ScopeLine>
      <ScopeLine label="Agents" wide={props.agentId === "*"}>
        {props.agentId === "*" ? "every agent" : `only ${props.agentId}`}
      </ScopeLine>
    </ul>
  );
}

/** The limits of a draft: expiry and number of uses. */
function LimitSelects(props: { id: string; draft: DraftEntry; onChange: (draft: DraftEntry) => void }) {
  const { draft, id } = props;
  return (
    <div className="scope-limits">
      <SelectField
        id={`${id}-expires`}
        label="Expires"
        value={draft.expiresInMinutes === null ? "" : String(draft.expiresInMinutes)}
        choices={EXPIRY_CHOICES}
        onChange={(value) =>
          props.onChange({ ...draft, expiresInMinutes: value === "" ? null : Number(value) })
        }
      />
      <SelectField
        id={`${id}-uses`}
        label="Number of uses"
        value={draft.usesLeft === null ? "" : String(draft.usesLeft)}
        choices={USES_CHOICES}
        onChange={(value) => props.onChange({ ...draft, usesLeft: value === "" ? null : Number(value) })}
      />
    </div>
  );
}

/** An MCP entry: which tool of which server, for how long, how many calls, for which agents. */
function McpDraftRow(props: {
  prompt: PromptView;
  draft: DraftEntry;
  index: number;
  server: string;
  tool: string;
  onChange: (draft: DraftEntry) => void;
  onCheck: (index: number, ok: boolean) => void;
}) {
  const { draft, index, prompt, onCheck } = props;
  const { answer: check, current } = useEntryCheck(entryOfPatterns(draft), prompt.agentId);
  const ok = current && check?.ok === true;
  useEffect(() => onCheck(index, ok), [onCheck, index, ok]);
  return (
    <fieldset className="entry-draft">
      <legend>
        Entry {index + 1}: <PathText className="mono" text={draft.pattern} />
      </legend>
      <ul className="scope" aria-label="What this entry allows">
        <ScopeLine label="Tool" wide={false}>
          {`only the tool ${props.tool} of the MCP server ${props.server}, with any input`}
        </ScopeLine>
        <ScopeLine label="For how long" wide={draft.expiresInMinutes === null}>
          {draft.expiresInMinutes === null
            ? "until you remove it"
            : `for ${durationWords(draft.expiresInMinutes)} from now, then it asks again`}
        </ScopeLine>
        <ScopeLine label="How many calls" wide={draft.usesLeft === null}>
          {draft.usesLeft === null
            ? "any number"
            : `the next ${draft.usesLeft === 1 ? "call" : `${draft.usesLeft} calls`}, then it asks again`}
        </ScopeLine>
        <ScopeLine label="Agents" wide={savedFor(prompt) === "*"}>
          {savedFor(prompt) === "*" ? "every agent" : `only ${prompt.agentId}`}
        </ScopeLine>
      </ul>
      <LimitSelects id={`entry-${index}`} draft={draft} onChange={props.onChange} />
      {check?.problems.map((p) => (
        <p key={p.field} className="warn-text">
          {p.reason}
        </p>
      ))}
    </fieldset>
  );
}

export function EntryDraftRow(props: {
  prompt: PromptView;
  draft: DraftEntry;
  index: number;
  onChange: (draft: DraftEntry) => void;
  onCheck: (index: number, ok: boolean) => void;
}) {
  const mcp = parseMcpPattern(props.draft.pattern);
  if (mcp) return <McpDraftRow {...props} server={mcp.server} tool={mcp.tool} />;
  return <ProgramDraftRow {...props} />;
}

function ProgramDraftRow(props: {
  prompt: PromptView;
  draft: DraftEntry;
  index: number;
  onChange: (draft: DraftEntry) => void;
  onCheck: (index: number, ok: boolean) => void;
}) {
  const { draft, index, prompt, onCheck } = props;
  const entry = entryOfPatterns(draft);
  const { answer: check, current } = useEntryCheck(entry, prompt.agentId);
  const ok = current && check?.ok === true;
  useEffect(() => onCheck(index, ok), [onCheck, index, ok]);
  const exact = prompt.narrowing.exactArgPatterns[draft.segment] ?? null;
  const segment = prompt.explanation.segments[draft.segment];
  const program = segment?.executable ?? draft.pattern;
  const id = `entry-${index}`;
  return (
    <fieldset className="entry-draft">
      <legend>
        Entry {index + 1}: <span className="mono">{segment?.argv.join(" ") ?? draft.pattern}</span>
      </legend>
      <ScopeSummary draft={draft} agentId={savedFor(prompt)} program={program} />
      <div className="scope-narrow">
        {exact !== null ? (
          <label>
            <input
              type="checkbox"
              checked={draft.argPattern === exact}
              onChange={(e) => props.onChange({ ...draft, argPattern: e.target.checked ? exact : "" })}
            />{" "}
            Only these exact arguments
          </label>
        ) : null}
        <label>
          <input
            type="checkbox"
            checked={draft.cwd === prompt.narrowing.cwdPattern}
            onChange={(e) =>
              props.onChange({ ...draft, cwd: e.target.checked ? prompt.narrowing.cwdPattern : "" })
            }
          />{" "}
          Only in this folder
        </label>
      </div>
      <LimitSelects id={id} draft={draft} onChange={props.onChange} />
      <div className="editor-grid">
        <EntryPatternFields
          idPrefix={id}
          value={draft}
          onChange={(next) => props.onChange({ ...draft, ...next })}
          check={check}
        />
      </div>
    </fieldset>
  );
}
