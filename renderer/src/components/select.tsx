// Choosing one of a few values: a native <select> (the platform's own keyboard behaviour and look) in a
// labelled field. `SettingSelect` is the policy-setting kind: "inherit" or a value, with the plain-words
// description of the value in effect under it.
import { FormField, type FieldProps } from "./field.js";

export interface Choice {
  value: string;
  label: string;
}

/** Plain words for each value of a setting (words.ts: SECURITY_WORDS, ASK_WORDS, FALLBACK_WORDS). */
export type SettingWords = Record<string, { label: string; help: string }>;

export function SelectField(
  props: FieldProps & { value: string; choices: readonly Choice[]; onChange: (value: string) => void },
) {
  return (
    <FormField {...props}>
      {(control) => (
        <select {...control} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
          {props.choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
}

/**
 * A setting that is either set here or inherited: the first choice ("Inherit: …") clears it
 * (`onChange(null)`); the line under it describes the value in effect.
 */
export function SettingSelect(props: {
  id: string;
  label: string;
  /** The value set here, or undefined when inherited. */
  own: string | undefined;
  /** What inheriting gives, in words ("deny (defaults)"). */
  inherited: string;
  words: SettingWords;
  /** The value in effect (own or inherited). */
  effective: string;
  onChange: (value: string | null) => void;
}) {
  const choices: Choice[] = [
    { value: "", label: `Inherit: ${props.inherited}` },
    ...Object.entries(props.words).map(([value, w]) => ({ value, label: w.label })),
  ];
  return (
    <SelectField
      id={props.id}
      label={props.label}
      className="setting"
      value={props.own ?? ""}
      choices={choices}
      note={props.words[props.effective]?.help ?? ""}
      onChange={(value) => props.onChange(value === "" ? null : value)}
    />
  );
}
