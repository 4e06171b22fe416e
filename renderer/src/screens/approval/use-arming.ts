// Deliberate approval (issues 16 and 32): the allowing buttons arm only after what they allow has been on
// screen, with the window visible and focused, for a moment; arming restarts whenever the content changes
// (another request, the scope editor opening, an edited entry), the window is shown or focused again, or
// focus lands on an allowing button that was not armed or not pressed (the focus a press on an armed
// button gives it is part of that click: restarting there would disarm the button under the pointer
// between press and release, and the click would never count). A key counts only as a fresh press made after arming: never an
// auto-repeat, never a key that was already down before arming, never a press in a burst of keystrokes
// that began before arming. So neither Enter pressed over and over nor a held key can allow, whatever the
// timing, and "Allow always…" then Enter cannot save a rule unseen.
import { useCallback, useEffect, useRef, useState } from "react";
import type { KeyboardEvent as ReactKeyboardEvent, MouseEvent as ReactMouseEvent } from "react";

/** How long what is asked must be visible (and, for the keyboard, the button focused) before it can be allowed. */
export const ARM_DELAY_MS = 1000;
/** Keydowns closer together than this belong to one burst; a burst that began before arming never counts. */
export const BURST_GAP_MS = 700;

function pageVisible(): boolean {
  return document.visibilityState === "visible";
}

/** What the keyboard did, as seen by the window before anything else handles it. */
interface KeyTrace {
  /** Keys down now (by `code`), with when they went down. */
  down: Map<string, number>;
  lastKeydownAt: number;
  burstStartedAt: number;
}

export interface Arming {
  /** Allowing is possible now (shown as the buttons' aria-disabled). */
  armed: boolean;
  /** Focus landed on an allowing button: arming starts again. */
  restart(): void;
  /** Handlers for an allowing button; `allow` runs only for a deliberate activation. */
  buttonHandlers(allow: () => void): {
    onFocus: () => void;
    onPointerDown: () => void;
    onKeyDown: (event: ReactKeyboardEvent) => void;
    onKeyUp: (event: ReactKeyboardEvent) => void;
    onClick: (event: ReactMouseEvent) => void;
  };
}

/**
 * Arming of the allowing buttons for the content `contentKey` (null: nothing is shown). Every check reads
 * refs, so a keystroke handled before React renders again sees the arming as it is at that instant.
 */
export function useArming(contentKey: string | null, delayMs: number = ARM_DELAY_MS): Arming {
  const [visible, setVisible] = useState(pageVisible);
  const [epoch, setEpoch] = useState(0);
  const [armedToken, setArmedToken] = useState<string | null>(null);
  const token = contentKey === null || !visible ? null : `${epoch}:${contentKey}`;
  const tokenNow = useRef(token);
  tokenNow.current = token;
  /** The token that is armed and since when (performance.now()). */
  const armedAt = useRef<{ token: string; at: number } | null>(null);
  const keys = useRef<KeyTrace>({ down: new Map(), lastKeydownAt: -Infinity, burstStartedAt: -Infinity });
  /** The last pointer press on an allowing button: on which content, armed then, released since. */
  const pointer = useRef<{ token: string | null; armed: boolean; released: boolean } | null>(null);
  const spaceCounts = useRef<string | null>(null);

  const restart = useCallback(() => {
    armedAt.current = null;
    setEpoch((n) => n + 1);
  }, []);

  useEffect(() => {
    const onVisibility = () => {
      setVisible(pageVisible());
      restart();
    };
    // Capture phase: the trace is up to date before any button sees the key.
    const onKeyDown = (event: KeyboardEvent) => {
      const now = performance.now();
      const trace = keys.current;
      if (now - trace.lastKeydownAt > BURST_GAP_MS) trace.burstStartedAt = now;
      trace.lastKeydownAt = now;
      if (!event.repeat) trace.down.set(event.code || event.key, now);
    };
    const onKeyUp = (event: KeyboardEvent) => void keys.current.down.delete(event.code || event.key);
    // A press that ends anywhere is over: a focus after it is not that press's focus.
    const onPointerUp = () => {
      if (pointer.current) pointer.current.released = true;
    };
    // Keys released while the window had no focus never report their keyup: forget them, and arm again.
    const onBlur = () => {
      keys.current.down.clear();
      restart();
    };
    document.addEventListener("visibilitychange", onVisibility);
    window.addEventListener("keydown", onKeyDown, true);
    window.addEventListener("keyup", onKeyUp, true);
    window.addEventListener("pointerup", onPointerUp, true);
    window.addEventListener("pointercancel", onPointerUp, true);
    window.addEventListener("blur", onBlur);
    window.addEventListener("focus", restart);
    return () => {
      document.removeEventListener("visibilitychange", onVisibility);
      window.removeEventListener("keydown", onKeyDown, true);
      window.removeEventListener("keyup", onKeyUp, true);
      window.removeEventListener("pointerup", onPointerUp, true);
      window.removeEventListener("pointercancel", onPointerUp, true);
      window.removeEventListener("blur", onBlur);
      window.removeEventListener("focus", restart);
    };
  }, [restart]);

  useEffect(() => {
    armedAt.current = null;
    if (token === null) return;
    const timer = setTimeout(() => {
      armedAt.current = { token, at: performance.now() };
      setArmedToken(token);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [token, delayMs]);

  /** Since when the content shown now is armed, or null. */
  const armedSince = (): number | null => {
    const a = armedAt.current;
    return a !== null && a.token === tokenNow.current ? a.at : null;
  };

  /** No key is held from before arming and the keyboard has been quiet since, or only pressed after it. */
  const keyboardSettled = (since: number): boolean => {
    const trace = keys.current;
    for (const at of trace.down.values()) if (at < since) return false;
    return trace.burstStartedAt >= since || performance.now() - trace.lastKeydownAt > BURST_GAP_MS;
  };

  /** A keydown on an allowing button is deliberate: a fresh press of a key that went down after arming. */
  const keyCounts = (event: ReactKeyboardEvent): boolean => {
    const since = armedSince();
    if (since === null || event.repeat || !event.nativeEvent.isTrusted) return false;
    const trace = keys.current;
    const downAt = trace.down.get(event.code || event.key);
    return downAt !== undefined && downAt >= since && trace.burstStartedAt >= since && keyboardSettled(since);
  };

  /** The pointer is down, now, on this armed content (the focus it gives a button is part of its click). */
  const armedPress = (): boolean => {
    const down = pointer.current;
    return down !== null && !down.released && down.armed && down.token === tokenNow.current;
  };

  const buttonHandlers: Arming["buttonHandlers"] = (allow) => ({
    // Focus by keyboard (or script) restarts arming; a press on an armed button keeps it armed.
    onFocus: () => {
      if (!armedPress()) restart();
    },
    // Whether a click may allow is decided when the pointer goes down on armed content.
    onPointerDown: () => {
      pointer.current = { token: tokenNow.current, armed: armedSince() !== null, released: false };
    },
    onKeyDown: (event) => {
      if (event.key === "Enter") {
        // The browser would turn this key into a click: the button decides instead.
        event.preventDefault();
        if (keyCounts(event)) allow();
      } else if (event.key === " ") {
        event.preventDefault();
        spaceCounts.current = keyCounts(event) ? tokenNow.current : null;
      }
    },
    onKeyUp: (event) => {
      if (event.key !== " ") return;
      event.preventDefault();
      const counted = spaceCounts.current;
      spaceCounts.current = null;
      if (counted !== null && counted === tokenNow.current && armedSince() !== null) allow();
    },
    onClick: (event) => {
      const down = pointer.current;
      pointer.current = null;
      if (event.detail > 0) {
        // A pointer click: the pointer went down on this content while it was armed, and nothing
        // restarted arming before it came up (another request, the window shown or focused again).
        if (down !== null && down.armed && down.token === tokenNow.current && armedSince() !== null) allow();
        return;
      }
      // A click with no pointer (assistive technology): armed, and no keystroke from before arming.
      const since = armedSince();
      if (since !== null && keyboardSettled(since)) allow();
    },
  });

  return { armed: token !== null && armedToken === token, restart, buttonHandlers };
}
