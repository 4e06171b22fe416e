// Scope you can see (issue 16): what each entry "Allow always" would save covers — which program, which
// arguments, which folder, which agents — with the wide parts called out, and one click to narrow it to
// these exact arguments or this folder. The fields are the allowlist editor's, checked by main as typed.
import { useEffect } from "react";
import type { PromptView } from "../../../../src/ipc/contract.js";
import {
  EntryPatternFields,
  entryOfPatterns,
  useEntryCheck,
  type EntryPatterns,
} from "../../components/entry-fields.js";

export interface DraftEntry extends EntryPatterns {
  segment: number;
}

/** The proposed entries, narrowed to this folder; to these exact arguments too when `exactArgs`. */
export function draftsOf(prompt: PromptView, exactArgs: boolean): DraftEntry[] {
  return prompt.explanation.proposedEntries.map((e) => ({
    segment: e.segment,
    pattern: e.pattern,
    argPattern: e.argPattern ?? (exactArgs ? (prompt.narrowing.exactArgPatterns[e.segment] ?? "") : ""),
    cwd: prompt.narrowing.cwdPattern,
  }));
}

const GLOB = /[*?[\]{}]/;

function ScopeLine(props: { label: string; wide: boolean; children: string }) {
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
        {GLOB.test(draft.pattern) ? `any program matching ${draft.pattern}` : `only ${draft.pattern}`}
      </ScopeLine>
      <ScopeLine label="Arguments" wide={draft.argPattern === ""}>
        {draft.argPattern === ""
          ? `any arguments: ${props.program} could run with other files and options without asking`
          : `only arguments matching ${draft.argPattern}`}
      </ScopeLine>
      <ScopeLine label="Folder" wide={draft.cwd.trim() === ""}>
        {draft.cwd.trim() === "" ? "any folder" : `only in ${draft.cwd}`}
      </ScopeLine>
      <ScopeLine label="Agents" wide={props.agentId === "*"}>
        {props.agentId === "*" ? "every agent" : `only ${props.agentId}`}
      </ScopeLine>
    </ul>
  );
}

export function EntryDraftRow(props: {
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
      <ScopeSummary draft={draft} agentId={prompt.agentId} program={program} />
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
