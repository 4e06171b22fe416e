// Form fields: a label tied to its control, and a line under it that shows the field's error (in red,
// `aria-invalid` on the control) or else its note, announced politely as it changes. Stacked fields sit
// in an `.editor-grid`; inline ones (label and control side by side) in a `.toolbar`.
import type { HTMLInputTypeAttribute, ReactNode } from "react";

/** What a control needs to be tied to its label and message line. */
export interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

export interface FieldProps {
  id: string;
  label: string;
  /** The label is read by screen readers only (a search box whose placeholder says what it is). */
  hideLabel?: boolean;
  /** The reason the value is refused; shown instead of the warning and the note. */
  error?: string | null;
  /** Something the person should know that does not stop a save (shown instead of the note). */
  warning?: string | null;
  /** Help under the control. A field given `note` or `error` (even null) keeps its message line. */
  note?: ReactNode;
  /** Stacked fields: span both columns of the editor grid. */
  wide?: boolean;
  /** `inline`: label and control side by side in a toolbar, no message line. */
  layout?: "stacked" | "inline";
  /** Extra class of a stacked field's box. */
  className?: string;
}

/** The message line under a control: the error when there is one, else the warning, else the note. */
export function FieldMessage(props: {
  id: string;
  error?: string | null;
  warning?: string | null;
  note?: ReactNode;
}) {
  const kind = props.error ? "field-error" : props.warning ? "field-warning" : "field-note";
  return (
    <span id={props.id} className={kind} aria-live="polite">
      {props.error ?? (props.warning ? `Warning: ${props.warning}` : null) ?? props.note ?? ""}
    </span>
  );
}

/** A labelled control: `children` receives the props that tie the control to the label and message. */
export function FormField(props: FieldProps & { children: (control: ControlProps) => ReactNode }) {
  const hasMessage = props.layout !== "inline" && (props.note !== undefined || props.error !== undefined);
  const messageId = `${props.id}-note`;
  const control: ControlProps = {
    id: props.id,
    ...(hasMessage ? { "aria-describedby": messageId } : {}),
    ...(props.error !== undefined ? { "aria-invalid": Boolean(props.error) } : {}),
  };
  const label = (
    <label htmlFor={props.id} className={props.hideLabel ? "visually-hidden" : undefined}>
      {props.label}
    </label>
  );
  if (props.layout === "inline") {
    return (
      <>
        {label}
        {props.children(control)}
      </>
    );
  }
  const classes = ["field", props.wide ? "wide" : "", props.className ?? ""].filter(Boolean).join(" ");
  return (
    <div className={classes}>
      {label}
      {props.children(control)}
      {hasMessage ? (
        <FieldMessage id={messageId} error={props.error} warning={props.warning} note={props.note} />
      ) : null}
    </div>
  );
}

export interface TextFieldProps extends FieldProps {
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  type?: HTMLInputTypeAttribute;
  /** Paths, patterns, ids: monospace, no spell checking. */
  mono?: boolean;
  /** Inline fields: take the toolbar's free width. */
  grow?: boolean;
  inputMode?: "text" | "numeric" | "url";
  autoComplete?: string;
  autoFocus?: boolean;
  /** Extra class of the input ("search"). */
  inputClassName?: string;
  /** Ties the input to a message shown elsewhere (an inline field's alert under its toolbar). */
  describedBy?: string;
  /** A control beside the input (a "Choose…" button). */
  addon?: ReactNode;
}

export function TextField(props: TextFieldProps) {
  const classes = [props.mono ? "mono" : "", props.grow ? "grow" : "", props.inputClassName ?? ""]
    .filter(Boolean)
    .join(" ");
  return (
    <FormField {...props}>
      {(control) => {
        const input = (
          <input
            {...control}
            {...(props.describedBy ? { "aria-describedby": props.describedBy } : {})}
            className={classes || undefined}
            type={props.type}
            value={props.value}
            placeholder={props.placeholder}
            spellCheck={props.mono ? false : undefined}
            inputMode={props.inputMode}
            autoComplete={props.autoComplete}
            autoFocus={props.autoFocus}
            onChange={(e) => props.onChange(e.target.value)}
          />
        );
        if (!props.addon) return input;
        return (
          <div className="input-with-button">
            {input}
            {props.addon}
          </div>
        );
      }}
    </FormField>
  );
}

/** A filter box: a search input whose label only screen readers read (the placeholder shows it). */
export function SearchField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  className?: string;
}) {
  return (
    <TextField
      id={props.id}
      label={props.label}
      hideLabel
      layout="inline"
      type="search"
      value={props.value}
      onChange={props.onChange}
      placeholder={props.placeholder}
      inputClassName={props.className}
    />
  );
}

/** The words of a filter box, lower-cased. */
export function searchWords(text: string): string[] {
  return text.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether every word occurs in the text of the searched fields (empty fields are skipped). */
export function matchesWords(
  words: readonly string[],
  fields: ReadonlyArray<string | null | undefined>,
): boolean {
  if (words.length === 0) return true;
  const hay = fields.filter(Boolean).join(" ").toLowerCase();
  return words.every((w) => hay.includes(w));
}
