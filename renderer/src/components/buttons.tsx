// Buttons and forms: native <button type="button"> (never an accidental submit), a link-style button for
// row actions whose accessible name says what it acts on, a folder-picker button, and a form that
// submits without reloading the page.
import type { FormEvent, ReactNode, Ref } from "react";
import { call } from "../bridge.js";

export type ButtonKind = "normal" | "primary" | "danger";

export function Button(props: {
  children: ReactNode;
  onClick?: () => void;
  kind?: ButtonKind;
  small?: boolean;
  disabled?: boolean;
  /** `submit`: the button of the surrounding form. */
  submit?: boolean;
  /** Accessible name when the visible text is not enough. */
  label?: string;
  autoFocus?: boolean;
  ref?: Ref<HTMLButtonElement>;
}) {
  const classes = [
    "button",
    props.kind && props.kind !== "normal" ? props.kind : "",
    props.small ? "small" : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <button
      ref={props.ref}
      type={props.submit ? "submit" : "button"}
      className={classes}
      onClick={props.onClick}
      disabled={props.disabled}
      aria-label={props.label}
      autoFocus={props.autoFocus}
    >
      {props.children}
    </button>
  );
}

/** A quiet button in a table row or next to a value; `label` names what it acts on ("Delete /usr/bin/ls"). */
export function LinkButton(props: {
  children: ReactNode;
  label: string;
  onClick: () => void;
  danger?: boolean;
}) {
  return (
    <button
      type="button"
      className={props.danger ? "link-button danger" : "link-button"}
      onClick={props.onClick}
      aria-label={props.label}
    >
      {props.children}
    </button>
  );
}

/** "Choose…": the system folder picker; calls `onPick` with the chosen folder (nothing when cancelled). */
export function ChooseFolderButton(props: { title: string; onPick: (path: string) => void }) {
  const choose = async () => {
    const picked = await call("app.pickFolder", { title: props.title }).catch(() => ({ path: null }));
    if (picked.path) props.onPick(picked.path);
  };
  return <Button onClick={() => void choose()}>Choose…</Button>;
}

/** A form whose submit (Enter in a field, its submit button) calls `onSubmit` instead of navigating. */
export function Form(props: {
  children: ReactNode;
  onSubmit: () => void;
  className?: string;
  label?: string;
}) {
  return (
    <form
      className={props.className}
      aria-label={props.label}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
    </form>
  );
}
