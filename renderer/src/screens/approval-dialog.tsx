// The approval dialog (ui.md "Approval dialog", issue 16): the oldest pending request, what could go
// wrong first, what will run and where, who says they ask, why it is asked, the countdown and what
// happens then, and Deny (Esc) / Allow always (the exact scope it grants) / Allow once. Approval is
// deliberate: nothing that allows has focus by default, the allowing buttons arm only once the request
// has been visible for a moment and disarm whenever it changes (announced) or focus lands on them, and
// only a fresh key press on an armed allowing button allows (approval/use-arming.ts). "Allow always…"
// opens the scope editor with focus in it; its "Save and allow" is a button of its own that arms anew.
// Decisions are final and take effect at once.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";
import type { PromptView } from "../../../src/ipc/contract.js";
import { call, useEvent, useLiveEffect } from "../bridge.js";
import { Button } from "../components/buttons.js";
import { CopyButton, Message, Notice, Pill } from "../components/common.js";
import { SegmentList } from "../components/explanation.js";
import { useNow } from "../components/use-now.js";
import { countdown, fallbackOutcome, reasonWords, runtimeWords, sourceWords, whereWords } from "../words.js";
import { confirmedOf, draftsOf, EntryDraftRow, type DraftEntry } from "./approval/allow-always.js";
import { hasDanger, RiskBanner } from "./approval/risk-banner.js";
import { DENY_REASON_MAX } from "../../../src/shared/deny-reason.js";
import { ElevatedBar } from "./approval/elevated-bar.js";
import { useArming, type Arming } from "./approval/use-arming.js";
import { PathText } from "../components/path-text.js";

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

/** A short, one-line name of a request for notices ("rm -rf build"). */
function shortName(prompt: PromptView): string {
  const text = prompt.toolCall
    ? prompt.toolCall.tool
    : prompt.fileAccess
      ? `${prompt.fileAccess.tool} ${prompt.fileAccess.paths.map((p) => p.path).join(", ")}`
      : prompt.commandText;
  const line = text.replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 50)} … ${line.slice(-25)}` : line;
}

/**
 * What happened to the request shown before this one, said when the shown request changes: the person
 * decided it here, or it left without an answer (timed out, or its client went away).
 */
function useChangeNotice(prompt: PromptView | null, decidedHere: RefObject<string | null>): string | null {
  const previous = useRef<PromptView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const id = prompt?.id ?? null;
  useEffect(() => {
    const before = previous.current;
    previous.current = prompt;
    // A request arriving after the dialog was empty: what was said about an earlier one is stale now.
    if (!before) {
      if (id !== null) setNotice(null);
      return;
    }
    if (before.id === id) return;
    const answered = decidedHere.current === before.id;
    const gone = answered
      ? null
      : Date.now() >= before.expiresAt
        ? `The request "${shortName(before)}" timed out before you answered: ${fallbackOutcome(before.explanation).replace("the command", "it")}.`
        : `The request "${shortName(before)}" was withdrawn before you answered.`;
    if (id === null) setNotice(gone);
    else setNotice(`${gone ? `${gone} ` : ""}A different request is shown now: read it before you answer.`);
  }, [id]);
  return notice;
}

/**
 * Who asks. Verified only when the request carried its task's proof (the task's own hook, with the key
 * Gatehouse gave that running task); anything else is what the client says, and labelled so.
 */
function Provenance(props: { prompt: PromptView }) {
  const { prompt } = props;
  const v = prompt.verified;
  if (v) {
    return (
      <div className="kv-row">
        <dt>Asked by</dt>
        <dd data-provenance="verified">
          Task {v.taskId} <span className="verified-note">(verified: Gatehouse launched it)</span>
          <br />
          {runtimeWords(v.runtime)} · agent {v.agent}
        </dd>
      </div>
    );
  }
  return (
    <div className="kv-row">
      <dt>Asked by</dt>
      <dd data-provenance="claimed">
        {prompt.agentId} · {sourceWords(prompt.source)}{" "}
        <span className="muted">
          (as its client says; Gatehouse cannot verify this
          {prompt.explanation.identity === "unproven" ? ", so the least-trusted agent's rules apply" : ""})
        </span>
      </dd>
    </div>
  );
}

export function ApprovalDialog(props: { prompts: PromptView[]; onEmpty?: () => void; compact?: boolean }) {
  const prompt = props.prompts[0] ?? null;
  const promptId = prompt?.id ?? null;
  const now = useNow(500);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [drafts, setDrafts] = useState<DraftEntry[]>([]);
  // Each edit of an entry is new content to read before saving.
  const [draftsVersion, setDraftsVersion] = useState(0);
  const arming = useArming(
    promptId === null ? null : `${promptId}|${editing ? "editor" : "request"}|${draftsVersion}`,
  );
  const armed = arming.armed;
  const [valid, setValid] = useState<Record<number, boolean>>({});
  const decidedHere = useRef<string | null>(null);
  const commandBox = useRef<HTMLPreElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const editor = useRef<HTMLDivElement>(null);
  const editorTitle = useRef<HTMLHeadingElement>(null);
  // Deny with a reason: what the person tells the agent (its model reads it as the hook's reason).
  const [denying, setDenying] = useState(false);
  const [denyText, setDenyText] = useState("");
  const denyField = useRef<HTMLTextAreaElement>(null);
  const notice = useChangeNotice(prompt, decidedHere);

  useEffect(() => {
    setError(null);
    setEditing(false);
    setDenying(false);
    setDenyText("");
    setBusy(false);
    setValid({});
    setDrafts(prompt ? draftsOf(prompt, hasDanger(prompt.risks)) : []);
    // Focus goes to what is asked, never to a button that allows it.
    (commandBox.current ?? title.current)?.focus();
  }, [promptId]);

  const onCheck = useCallback(
    (index: number, ok: boolean) =>
      setValid((current) => (current[index] === ok ? current : { ...current, [index]: ok })),
    [],
  );

  // Focus follows the editor: into it when it opens (never left on a button that saves), back to what is
  // asked when it closes. A layout effect, so no keystroke lands in between.
  const editorWasOpen = useRef(false);
  useLayoutEffect(() => {
    if (editing) {
      editorTitle.current?.focus();
      editor.current?.scrollIntoView?.({ block: "start" });
    } else if (editorWasOpen.current) {
      (commandBox.current ?? title.current)?.focus();
    }
    editorWasOpen.current = editing;
  }, [editing]);

  const openEditor = () => setEditing(true);

  const denyingWasOpen = useRef(false);
  useLayoutEffect(() => {
    if (denying) denyField.current?.focus();
    else if (denyingWasOpen.current) (commandBox.current ?? title.current)?.focus();
    denyingWasOpen.current = denying;
  }, [denying]);

  const decide = async (decision: "allow-once" | "allow-always" | "deny") => {
    // Allowing is gated by the buttons (AllowButton): only a deliberate press on an armed one gets here.
    if (!prompt || busy) return;
    setBusy(true);
    setError(null);
    decidedHere.current = prompt.id;
    try {
      const result = await call("prompts.decide", {
        id: prompt.id,
        decision,
        ...(decision === "allow-always" ? { entries: drafts.map(confirmedOf) } : {}),
        ...(decision === "deny" && denying && denyText.trim() !== "" ? { reason: denyText } : {}),
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
      if (!prompt || event.key !== "Escape") return;
      event.preventDefault();
      if (denying) setDenying(false);
      else if (editing) setEditing(false);
      else void decide("deny");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  if (!prompt) {
    return (
      <div className="approval approval-empty">
        <ElevatedBar />
        <Notice tone="warn" text={notice} />
        <h1>No approvals waiting</h1>
        <p className="muted">When an agent asks to run a command that needs you, it shows up here.</p>
      </div>
    );
  }

  const x = prompt.explanation;
  const file = prompt.fileAccess;
  const tool = prompt.toolCall;
  const left = prompt.expiresAt - now;
  const danger = hasDanger(prompt.risks);
  const allValid = drafts.length > 0 && drafts.every((_, i) => valid[i] === true);
  const position = `1 of ${props.prompts.length}`;
  const allowDisabled = busy;
  return (
    <div
      className={danger ? "approval approval-danger" : "approval"}
      role="dialog"
      aria-modal="false"
      aria-labelledby="approval-title"
      aria-describedby="approval-why"
    >
      <ElevatedBar />
      <Notice tone="info" text={notice} />
      <header className="approval-header">
        <h1 id="approval-title" ref={title} tabIndex={-1}>
          {tool
            ? tool.kind === "mcp"
              ? `Allow this MCP tool call?`
              : `Allow ${tool.tool}?`
            : file
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
      <RiskBanner risks={prompt.risks} />
      {tool ? (
        <ToolCallBox tool={tool} focus={commandBox} />
      ) : file ? (
        <ul className="file-paths" aria-label="Files">
          {file.paths.map((p) => (
            <li key={p.path}>
              <PathText className="mono selectable" text={p.path} />{" "}
              <span className="muted">— {whereWords(p)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <div className="command-box">
          <pre className="command selectable" aria-label="Command" tabIndex={0} ref={commandBox}>
            {prompt.commandText}
          </pre>
          <div className="command-actions">
            <CopyButton text={prompt.commandText} label="command" />
          </div>
        </div>
      )}
      <p className="countdown">If you do not answer in time, {fallbackOutcome(x)}.</p>
      <dl className="kv approval-meta">
        <div className="kv-row">
          <dt>{file || tool ? "Task's folder" : "Folder"}</dt>
          <dd>
            <PathText className="mono selectable" text={prompt.cwd} />
          </dd>
        </div>
        <Provenance prompt={prompt} />
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
          <h2 ref={editorTitle} tabIndex={-1}>
            {x.identity === "unproven"
              ? "Add to the allowlist of every agent (who asks is not proven, so only that list decides)"
              : `Add to the allowlist of ${prompt.agentId}`}
          </h2>
          <p className="muted">
            These entries are saved and the command runs. Each one lets what it describes run without asking
            again.
          </p>
          {drafts.map((draft, index) => (
            <EntryDraftRow
              key={index}
              index={index}
              prompt={prompt}
              draft={draft}
              onCheck={onCheck}
              onChange={(next) => {
                setDrafts((all) => all.map((d, i) => (i === index ? next : d)));
                setDraftsVersion((n) => n + 1);
              }}
            />
          ))}
          <div className="button-row editor-buttons">
            <Button onClick={() => setEditing(false)}>Back</Button>
            <span className="spacer" />
            <AllowButton
              arming={arming}
              ready={!allowDisabled && allValid}
              onAllow={() => void decide("allow-always")}
            >
              Save and allow
            </AllowButton>
          </div>
        </div>
      ) : null}
      {x.allowAlwaysWithheld !== undefined ? (
        <p className="withheld">
          No “Allow always” for this request: it {x.allowAlwaysWithheld}, and a standing rule for that would
          let it happen again without asking you.
        </p>
      ) : null}
      {error ? (
        <Message tone="error" live>
          {error}
        </Message>
      ) : null}
      {denying ? (
        <div className="deny-reason" role="group" aria-labelledby="deny-reason-label">
          <label id="deny-reason-label" htmlFor="deny-reason">
            Tell the agent why, or what to do instead <span className="muted">(it reads this; optional)</span>
          </label>
          <textarea
            id="deny-reason"
            ref={denyField}
            rows={2}
            maxLength={DENY_REASON_MAX}
            value={denyText}
            onChange={(e) => setDenyText(e.target.value)}
          />
          <div className="button-row">
            <Button onClick={() => setDenying(false)}>Back</Button>
            <span className="spacer" />
            <Button kind="primary" onClick={() => void decide("deny")} disabled={busy}>
              Deny and tell the agent
            </Button>
          </div>
        </div>
      ) : null}
      <div className="approval-buttons">
        {/* One line, kept when armed: arming must never move a button (a click's own focus or a window
            focus restarts arming; a button that moved between press and release loses the click). The time
            left is here, in view whatever is scrolled. */}
        <div className="approval-status">
          <Pill tone={left < 20_000 ? "warn" : "neutral"}>{countdown(left)} left</Pill>
          <span className="arming-note muted" id="arming-note">
            {armed ? "" : "Read it first: you can allow it in a moment."}
          </span>
        </div>
        <div className="button-row">
          <div className="button-group">
            <Button kind={danger ? "primary" : "normal"} onClick={() => void decide("deny")} disabled={busy}>
              Deny <kbd>Esc</kbd>
            </Button>
            {denying ? null : (
              <Button onClick={() => setDenying(true)} disabled={busy}>
                Tell the agent why…
              </Button>
            )}
          </div>
          <span className="spacer" />
          <div className="button-group allow-group">
            {x.allowAlwaysAvailable && !editing ? (
              <AllowButton key="allow-always" arming={arming} ready={!allowDisabled} onAllow={openEditor}>
                Allow always…
              </AllowButton>
            ) : null}
            <AllowButton
              key="allow-once"
              arming={arming}
              ready={!allowDisabled}
              primary={!danger && !editing}
              onAllow={() => void decide("allow-once")}
            >
              Allow once
            </AllowButton>
          </div>
        </div>
      </div>
    </div>
  );
}

/** What a tool call is: the tool, what it does, what Gatehouse did not understand, and its input. */
function ToolCallBox(props: {
  tool: NonNullable<PromptView["toolCall"]>;
  focus: RefObject<HTMLPreElement | null>;
}) {
  const { tool } = props;
  return (
    <div className="command-box">
      <p>
        <span className="mono selectable">{tool.tool}</span>{" "}
        <span className="muted">
          ({runtimeWords(tool.runtime === "claude" ? "claude-code" : "codex")}
          {tool.kind === "mcp" ? ", an MCP tool" : ""})
        </span>{" "}
        {tool.what}.
      </p>
      {tool.reason ? <p className="warn-text">{tool.reason}.</p> : null}
      {tool.input !== undefined ? (
        <>
          <pre className="command selectable" aria-label="Tool input" tabIndex={0} ref={props.focus}>
            {tool.input}
          </pre>
          <div className="command-actions">
            <CopyButton text={tool.input} label="input" />
          </div>
        </>
      ) : null}
    </div>
  );
}

/**
 * A button that allows: it stays focusable while unarmed (aria-disabled, so focus is never thrown to the
 * page, where a held Enter would land elsewhere) but does nothing until armed, and then only for a
 * deliberate click or fresh key press (`arming.buttonHandlers`). `ready`: what else it needs (not busy,
 * valid entries).
 */
function AllowButton(props: {
  arming: Arming;
  ready: boolean;
  primary?: boolean;
  onAllow: () => void;
  children: string;
}) {
  const on = props.arming.armed && props.ready;
  const handlers = props.arming.buttonHandlers(() => {
    if (props.ready) props.onAllow();
  });
  return (
    <button
      type="button"
      className={props.primary ? "button primary" : "button"}
      aria-disabled={!on}
      aria-describedby={props.arming.armed ? undefined : "arming-note"}
      {...handlers}
    >
      {props.children}
    </button>
  );
}
