// Small building blocks shared by the screens: sections, badges, copyable text, messages.
import { useState, type ReactNode } from "react";
import { call } from "../bridge.js";
import { LinkButton } from "./buttons.js";
import { PathText } from "./path-text.js";

export function Section(props: { title: string; actions?: ReactNode; children: ReactNode; id?: string }) {
  const headingId = props.id ?? `section-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section className="section" aria-labelledby={headingId}>
      <header className="section-header">
        <h2 id={headingId}>{props.title}</h2>
        {props.actions ? <div className="section-actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

export type Tone = "neutral" | "good" | "warn" | "bad" | "info";

export function Pill(props: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`pill pill-${props.tone}`} title={props.title}>
      {props.children}
    </span>
  );
}

export type MessageTone = "error" | "warn" | "info" | "ok";

export function Message(props: { tone: MessageTone; children: ReactNode; live?: boolean }) {
  return (
    <div
      className={`message message-${props.tone}`}
      role={props.live ? (props.tone === "error" ? "alert" : "status") : undefined}
    >
      {props.children}
    </div>
  );
}

/** The outcome of something the person just did, announced as it appears; nothing without `text`. */
export function Notice(props: { tone: MessageTone; text: string | null | undefined }) {
  if (!props.text) return null;
  return (
    <Message tone={props.tone} live>
      {props.text}
    </Message>
  );
}

/** Copies `text` to the clipboard through main; says "Copied" for a moment. */
export function CopyButton(props: { text: string; label: string; onError?: (message: string) => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await call("app.copyText", { text: props.text });
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch (error) {
      props.onError?.((error as Error).message);
    }
  };
  return (
    <LinkButton onClick={() => void copy()} label={`Copy ${props.label}`}>
      {copied ? "Copied" : "Copy"}
    </LinkButton>
  );
}

/** A path or value shown whole (wrapping), selectable, with a copy button (and reveal for paths). */
export function CopyText(props: {
  text: string;
  label: string;
  mono?: boolean;
  reveal?: boolean;
  /** A path: wraps only after its separators (path-text.tsx). */
  path?: boolean;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const reveal = async () => {
    const result = await call("app.revealPath", { path: props.text }).catch((e: Error) => ({
      ok: false as const,
      reason: e.message,
    }));
    setProblem(result.ok ? null : result.reason);
  };
  return (
    <span className="copy-text">
      {props.path ? (
        <PathText text={props.text} className="mono selectable" />
      ) : (
        <span className={props.mono === false ? "selectable" : "mono selectable"}>{props.text}</span>
      )}
      <CopyButton text={props.text} label={props.label} onError={setProblem} />
      {props.reveal ? (
        <LinkButton onClick={() => void reveal()} label={`Reveal ${props.label}`}>
          Reveal
        </LinkButton>
      ) : null}
      {problem ? <span className="field-error">{problem}</span> : null}
    </span>
  );
}

export function Empty(props: { children: ReactNode }) {
  return <p className="empty">{props.children}</p>;
}

export function KeyValue(props: { rows: Array<[string, ReactNode]> }) {
  return (
    <dl className="kv">
      {props.rows.map(([key, value]) => (
        <div className="kv-row" key={key}>
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p className="empty" role="status">
      Loading {props.what}…
    </p>
  );
}
