// The fields of an allowlist entry that say what it covers (program, arguments, folder), checked by
// main as they are typed: the allowlist editor and the approval dialog's "Allow always" use the same
// fields, words and validation.
import type { EntryCheck, EntryField, EntryInput } from "../../../src/ipc/contract.js";
import { call } from "../bridge.js";
import { TextField } from "./field.js";
import { useSettledAnswer, type SettledAnswer } from "./use-settled.js";

export interface EntryPatterns {
  pattern: string;
  argPattern: string;
  cwd: string;
}

/** The entry the fields describe: empty optional fields are left out, the folder glob trimmed. */
export function entryOfPatterns(patterns: EntryPatterns): EntryInput {
  const cwd = patterns.cwd.trim();
  return {
    pattern: patterns.pattern,
    ...(patterns.argPattern !== "" ? { argPattern: patterns.argPattern } : {}),
    ...(cwd !== "" ? { cwd } : {}),
  };
}

/** Why main refuses `field`, or null. */
export function checkError(check: EntryCheck | null, field: EntryField): string | null {
  return check?.problems.find((p) => p.field === field)?.reason ?? null;
}

/**
 * Main's check of `entry` (for `agentId`'s list) as it is typed; null checks nothing and keeps the last
 * answer. `current` says whether the answer is about the entry as it stands.
 */
export function useEntryCheck(entry: EntryInput | null, agentId?: string): SettledAnswer<EntryCheck> {
  return useSettledAnswer(
    entry === null ? null : { entry, ...(agentId !== undefined ? { agentId } : {}) },
    (request) => call("allowlist.checkEntry", request),
    { pauseMs: 120, keepWhenEmpty: true },
  );
}

/** Program, arguments and folder of an entry, with main's reason next to the field it is about. */
export function EntryPatternFields(props: {
  /** Prefix of the inputs' ids (`<prefix>-pattern`, `-args`, `-cwd`). */
  idPrefix: string;
  value: EntryPatterns;
  onChange: (next: EntryPatterns) => void;
  check: EntryCheck | null;
  autoFocus?: boolean;
}) {
  const { idPrefix, value, check } = props;
  const set = (key: keyof EntryPatterns) => (text: string) => props.onChange({ ...value, [key]: text });
  return (
    <>
      <TextField
        id={`${idPrefix}-pattern`}
        label="Program (pattern)"
        wide
        mono
        value={value.pattern}
        onChange={set("pattern")}
        placeholder="/usr/bin/git, rg, ~/bin/**"
        error={checkError(check, "pattern")}
        warning={check?.warning ?? null}
        note={check?.notes.join(" ") ?? null}
        autoFocus={props.autoFocus}
      />
      <TextField
        id={`${idPrefix}-args`}
        label="Arguments (regular expression)"
        wide
        mono
        value={value.argPattern}
        onChange={set("argPattern")}
        placeholder="^status( |$)"
        error={checkError(check, "argPattern")}
        note="Optional. Tested against the arguments joined with spaces."
      />
      <TextField
        id={`${idPrefix}-cwd`}
        label="Only in folders matching"
        wide
        mono
        value={value.cwd}
        onChange={set("cwd")}
        placeholder="~/Projects/**"
        error={checkError(check, "cwd")}
        note="Optional glob for the working folder."
      />
    </>
  );
}
