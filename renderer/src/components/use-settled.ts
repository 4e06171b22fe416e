// Live answers as the person types (validation, explanations, previews): main is asked about a value
// once it has stopped changing for a moment, and only the newest answer is kept.
import { useRef, useState } from "react";
import { useDebounced, useLiveEffect } from "../bridge.js";

export interface SettledAnswer<A> {
  /** The newest answer (it may be about an earlier value while the person types), or null. */
  answer: A | null;
  /** The answer is about the value as it is now. */
  current: boolean;
}

/**
 * Asks `ask(value)` once `value` has not changed for `pauseMs`; null asks nothing and clears the answer
 * (unless `keepWhenEmpty`). Values are compared by their JSON, so everything `ask` depends on belongs in
 * `value`. A refused `ask` leaves the answer as it was (map failures to answers inside `ask` to show them).
 */
export function useSettledAnswer<V, A>(
  value: V | null,
  ask: (value: V) => Promise<A>,
  options: { pauseMs: number; keepWhenEmpty?: boolean },
): SettledAnswer<A> {
  const key = value === null ? "" : JSON.stringify(value);
  const settledKey = useDebounced(key, options.pauseMs);
  const [state, setState] = useState<{ key: string; answer: A } | null>(null);
  const latestAsk = useRef(ask);
  latestAsk.current = ask;
  const keep = options.keepWhenEmpty === true;
  useLiveEffect(
    (live) => {
      if (settledKey === "") {
        if (!keep) setState(null);
        return;
      }
      latestAsk.current(JSON.parse(settledKey) as V).then(
        (answer) => {
          if (live()) setState({ key: settledKey, answer });
        },
        () => undefined,
      );
    },
    [settledKey, keep],
  );
  return { answer: state?.answer ?? null, current: state !== null && state.key === key && key !== "" };
}
