// The approval dialog (ui.md "Approval dialog"): the oldest pending request, what will run and where,
// why it is asked, the countdown and what happens then, and Allow once (Enter) / Allow always
// (editable entries) / Deny (Esc). Decisions are final and take effect at once.
import { useEffect, useMemo, useRef, useState } from "react";
import type { EntryCheck, PromptView } from "../../../src/ipc/contract.js";
import { call, useDebounced, useEvent, useLiveEffect } from "../bridge.js";
import { CopyButton, Message, Pill } from "../components/common.js";
import { SegmentList } from "../components/explanation.js";
import { countdown, fallbackOutcome, reasonWords, sourceWords, whereWords } from "../words.js";

export function usePendingPrompts(): { prompts: PromptView[]; error: string | null } {
  const [prompts, setPrompts] = useState<PromptView[]>([]);
  const [error, setError] = useState<string | null>(null);
  useLiveEffect((live) => {
    call("prompts.list", {}).then(
      (value) => live() && setPrompts(value.prompts),
      (failure: Error) => live() && setError(failure.message),
    );
  }, []);
  useEvent("prompts.changed", (payload) => setPrompts(payload.prompts));
  return { prompts, error };
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

interface DraftEntry {
  segment: number;
  pattern: string;
  argPattern: string;
  cwd: string;
}

function EntryDraftRow(props: {
  draft: DraftEntry;
  index: number;
  onChange: (draft: DraftEntry) => void;
  onCheck: (index: number, ok: boolean) => void;
}) {
  const { draft, index } = props;
  const settled = useDebounced(draft, 120);
  const [check, setCheck] = useState<EntryCheck | null>(null);
  const onCheck = props.onCheck;
  useLiveEffect(
    (live) => {
      call("allowlist.checkEntry", {
        entry: {
          pattern: settled.pattern,
          ...(settled.argPattern ? { argPattern: settled.argPattern } : {}),
          ...(settled.cwd ? { cwd: settled.cwd } : {}),
        },
      }).then(
        (result) => {
          if (!live()) return;
          setCheck(result);
          onCheck(index, result.ok);
        },
        () => undefined,
      );
    },
    [settled, index, onCheck],
  );
  const problem = check && !check.ok ? check : null;
  const id = `entry-${index}`;
  return (
    <fieldset className="entry-draft">
      <legend>Entry {index + 1}</legend>
      <div className="field">
        <label htmlFor={`${id}-pattern`}>Program (pattern)</label>
        <input
          id={`${id}-pattern`}
          className="mono"
          value={draft.pattern}
          spellCheck={false}
          aria-invalid={problem?.field === "pattern"}
          aria-describedby={`${id}-pattern-note`}
          onChange={(e) => props.onChange({ ...draft, pattern: e.target.value })}
        />
        <span
          id={`${id}-pattern-note`}
          className={problem?.field === "pattern" ? "field-error" : "field-note"}
        >
          {problem?.field === "pattern" ? problem.reason : (check?.notes[0] ?? "")}
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-args`}>Arguments (regular expression, optional)</label>
        <input
          id={`${id}-args`}
          className="mono"
          value={draft.argPattern}
          spellCheck={false}
          aria-invalid={problem?.field === "argPattern"}
          aria-describedby={`${id}-args-note`}
          onChange={(e) => props.onChange({ ...draft, argPattern: e.target.value })}
        />
        <span id={`${id}-args-note`} className="field-error">
          {problem?.field === "argPattern" ? problem.reason : ""}
        </span>
      </div>
      <div className="field">
        <label htmlFor={`${id}-cwd`}>Only in folders matching (optional)</label>
        <input
          id={`${id}-cwd`}
          className="mono"
          value={draft.cwd}
          spellCheck={false}
          placeholder="~/Projects/**"
          aria-invalid={problem?.field === "cwd"}
          aria-describedby={`${id}-cwd-note`}
          onChange={(e) => props.onChange({ ...draft, cwd: e.target.value })}
        />
        <span id={`${id}-cwd-note`} className="field-error">
          {problem?.field === "cwd" ? problem.reason : ""}
        </span>
      </div>
    </fieldset>
  );
}

export function ApprovalDialog(props: { prompts: PromptView[]; onEmpty?: () => void; compact?: boolean }) {
  const prompt = props.prompts[0] ?? null;
  const now = useNow(500);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [drafts, setDrafts] = useState<DraftEntry[]>([]);
  const [valid, setValid] = useState<Record<number, boolean>>({});
  const allowOnce = useRef<HTMLButtonElement>(null);
  const editor = useRef<HTMLDivElement>(null);
  const promptId = prompt?.id ?? null;

  useEffect(() => {
    setError(null);
    setEditing(false);
    setBusy(false);
    setValid({});
    setDrafts(
      (prompt?.explanation.proposedEntries ?? []).map((e) => ({
        segment: e.segment,
        pattern: e.pattern,
        argPattern: e.argPattern ?? "",
        cwd: "",
      })),
    );
    allowOnce.current?.focus();
  }, [promptId]);

  const onCheck = useMemo(
    () => (index: number, ok: boolean) =>
      setValid((current) => (current[index] === ok ? current : { ...current, [index]: ok })),
    [],
  );

  const openEditor = () => {
    setEditing(true);
    // Show the entries being saved and put the cursor in the first one.
    setTimeout(() => {
      editor.current?.scrollIntoView({ block: "start" });
      editor.current?.querySelector("input")?.focus();
    }, 0);
  };

  const decide = async (decision: "allow-once" | "allow-always" | "deny") => {
    if (!prompt || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await call("prompts.decide", {
        id: prompt.id,
        decision,
        ...(decision === "allow-always"
          ? {
              entries: drafts.map((d) => ({
                segment: d.segment,
                pattern: d.pattern,
                ...(d.argPattern ? { argPattern: d.argPattern } : {}),
                ...(d.cwd ? { cwd: d.cwd } : {}),
              })),
            }
          : {}),
      });
      if (!result.ok) setError(result.reason);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!prompt) return;
      if (event.key === "Escape") {
        event.preventDefault();
        if (editing) setEditing(false);
        else void decide("deny");
        return;
      }
      const target = event.target as HTMLElement | null;
      const inControl =
        target && target !== document.body && target.closest("button, input, textarea, select, a");
      if (event.key === "Enter" && !inControl && !editing) {
        event.preventDefault();
        void decide("allow-once");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  if (!prompt) {
    return (
      <div className="approval approval-empty">
        <h1>No approvals waiting</h1>
        <p className="muted">When an agent asks to run a command that needs you, it shows up here.</p>
      </div>
    );
  }

  const x = prompt.explanation;
  const file = prompt.fileAccess;
  const left = prompt.expiresAt - now;
  const allValid = drafts.length > 0 && drafts.every((_, i) => valid[i] === true);
  const position = `1 of ${props.prompts.length}`;
  return (
    <div
      className="approval"
      role="dialog"
      aria-modal="false"
      aria-labelledby="approval-title"
      aria-describedby="approval-why"
    >
      <header className="approval-header">
        <h1 id="approval-title">
          {file
            ? file.access === "write"
              ? `Allow ${file.tool} to change this file?`
              : `Allow ${file.tool} to read this file?`
            : "Allow this command?"}
        </h1>
        {props.prompts.length > 1 ? (
          <span className="counter" aria-label={`Request ${position}`}>
            {position}
          </span>
        ) : null}
      </header>
      {file ? (
        <ul className="file-paths" aria-label="Files">
          {file.paths.map((p) => (
            <li key={p.path}>
              <span className="mono selectable">{p.path}</span>{" "}
              <span className="muted">— {whereWords(p)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <div className="command-box">
          <pre className="command selectable" aria-label="Command">
            {prompt.commandText}
          </pre>
          <div className="command-actions">
            <CopyButton text={prompt.commandText} label="command" />
          </div>
        </div>
      )}
      <p className="countdown">
        <Pill tone={left < 20_000 ? "warn" : "neutral"}>{countdown(left)}</Pill>
        <span>
          If you do not answer in time, {fallbackOutcome(x)} (askFallback: {x.askFallback}).
        </span>
      </p>
      <dl className="kv approval-meta">
        <div className="kv-row">
          <dt>{file ? "Task's folder" : "Folder"}</dt>
          <dd className="mono selectable">{prompt.cwd}</dd>
        </div>
        <div className="kv-row">
          <dt>Agent</dt>
          <dd>
            {prompt.agentId} · {sourceWords(prompt.source)}
          </dd>
        </div>
        <div className="kv-row">
          <dt>Session</dt>
          <dd className="mono">{prompt.sessionKey}</dd>
        </div>
        {prompt.reason ? (
          <div className="kv-row">
            <dt>Reason given</dt>
            <dd>{prompt.reason}</dd>
          </div>
        ) : null}
      </dl>
      <div id="approval-why" className="approval-why">
        <h2>Why you are asked</h2>
        <p>{reasonWords(x)}</p>
        <SegmentList explanation={x} />
      </div>
      {editing ? (
        <div className="allow-always-editor" ref={editor}>
          <h2>Add to the allowlist of {prompt.agentId}</h2>
          <p className="muted">These entries are saved and the command runs. Edit them first if you like.</p>
          {drafts.map((draft, index) => (
            <EntryDraftRow
              key={index}
              index={index}
              draft={draft}
              onCheck={onCheck}
              onChange={(next) => setDrafts((all) => all.map((d, i) => (i === index ? next : d)))}
            />
          ))}
        </div>
      ) : null}
      {error ? (
        <Message tone="error" live>
          {error}
        </Message>
      ) : null}
      <div className="button-row approval-buttons">
        <button type="button" className="button" onClick={() => void decide("deny")} disabled={busy}>
          Deny <kbd>Esc</kbd>
        </button>
        <span className="spacer" />
        {x.allowAlwaysAvailable ? (
          editing ? (
            <button
              type="button"
              className="button"
              onClick={() => void decide("allow-always")}
              disabled={busy || !allValid}
            >
              Save and allow
            </button>
          ) : (
            <button type="button" className="button" onClick={openEditor} disabled={busy}>
              Allow always…
            </button>
          )
        ) : null}
        <button
          type="button"
          ref={allowOnce}
          className="button primary"
          onClick={() => void decide("allow-once")}
          disabled={busy}
          autoFocus
        >
          Allow once <kbd>↵</kbd>
        </button>
      </div>
    </div>
  );
}
