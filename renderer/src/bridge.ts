// The renderer's only way to main: `window.gatehouse` (exposed by the preload in Electron, by the test
// harness in the browser tests). Imports types only from the IPC contract.
import { useCallback, useEffect, useRef, useState, type DependencyList } from "react";
import type {
  Channel,
  EventName,
  EventPayload,
  GatehouseApi,
  IpcResult,
  RequestOf,
  ResponseOf,
} from "../../src/ipc/contract.js";

declare global {
  interface Window {
    gatehouse?: GatehouseApi;
  }
}

export class IpcCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "IpcCallError";
  }
}

function api(): GatehouseApi {
  const bridge = window.gatehouse;
  if (!bridge) throw new IpcCallError("no_bridge", "Gatehouse is not connected to this window.");
  return bridge;
}

/** Calls a channel and returns its value; a refused call (bad request, unknown sender) throws IpcCallError. */
export async function call<C extends Channel>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
  const method = api()[channel] as (request: RequestOf<C>) => Promise<IpcResult<ResponseOf<C>>>;
  const result = await method(request);
  if (!result.ok) throw new IpcCallError(result.error.code, result.error.message);
  return result.value;
}

export function onEvent<E extends EventName>(
  event: E,
  listener: (payload: EventPayload<E>) => void,
): () => void {
  const bridge = window.gatehouse;
  if (!bridge) return () => undefined;
  return bridge.on(event, listener);
}

/** Subscribes for the life of the component. */
export function useEvent<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => onEvent(event, (payload) => latest.current(payload)), [event]);
}

/**
 * An effect that starts asynchronous work: `live()` turns false once `deps` change again or the
 * component goes away, so an answer that arrives late is dropped instead of overwriting a newer one.
 */
export function useLiveEffect(run: (live: () => boolean) => void, deps: DependencyList): void {
  useEffect(() => {
    let live = true;
    run(() => live);
    return () => {
      live = false;
    };
    // `run` is a new closure on every render; `deps` say when it must run again.
  }, deps);
}

export interface Remote<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Loads a channel's value, and again when `key` changes or one of `refreshOn` fires. */
export function useRemote<C extends Channel>(
  channel: C,
  request: RequestOf<C>,
  refreshOn: readonly EventName[] = [],
  key = "",
): Remote<ResponseOf<C>> {
  const [data, setData] = useState<ResponseOf<C> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const requestRef = useRef(request);
  requestRef.current = request;
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useLiveEffect(
    (live) => {
      setLoading(true);
      call(channel, requestRef.current).then(
        (value) => {
          if (!live()) return;
          setData(value);
          setError(null);
          setLoading(false);
        },
        (failure: unknown) => {
          if (!live()) return;
          setError((failure as Error).message);
          setLoading(false);
        },
      );
    },
    [channel, key, tick],
  );

  const events = refreshOn.join(",");
  useEffect(() => {
    const names = events ? (events.split(",") as EventName[]) : [];
    const stops = names.map((name) => onEvent(name, reload));
    return () => stops.forEach((stop) => stop());
  }, [events, reload]);

  return { data, error, loading, reload };
}

/** A value that follows `value` after it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
