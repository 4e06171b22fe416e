// Deliberate approval (issue 16): the allowing buttons arm only after the request has been on screen,
// with the window visible, for a moment — and again whenever the request shown changes. A request that
// arrives or swaps in while Enter is being pressed, or while the person types elsewhere, cannot be allowed
// by that keystroke.
import { useEffect, useState } from "react";

/** How long a request must be visible before it can be allowed. */
export const ARM_DELAY_MS = 1000;

function pageVisible(): boolean {
  return document.visibilityState === "visible";
}

/** Whether the request `promptId` has been visible for `delayMs`; false at once when it changes. */
export function useArmed(promptId: string | null, delayMs: number = ARM_DELAY_MS): boolean {
  const [visible, setVisible] = useState(pageVisible);
  const [armedFor, setArmedFor] = useState<string | null>(null);
  useEffect(() => {
    const onChange = () => setVisible(pageVisible());
    document.addEventListener("visibilitychange", onChange);
    return () => document.removeEventListener("visibilitychange", onChange);
  }, []);
  useEffect(() => {
    setArmedFor(null);
    if (promptId === null || !visible) return;
    const timer = setTimeout(() => setArmedFor(promptId), delayMs);
    return () => clearTimeout(timer);
  }, [promptId, visible, delayMs]);
  // Compared during render, so the first frame of a new request is already disarmed.
  return promptId !== null && visible && armedFor === promptId;
}
