// Elevated mode, seen where approvals are (issue 32, Build 3): while any agent runs everything without
// asking, the approval window says who, the time left and until when, with a one-click end.
import { useState } from "react";
import { call, useRemote } from "../../bridge.js";
import { Message } from "../../components/common.js";
import { useNow } from "../../components/use-now.js";
import { clock, timeLeft } from "../../words.js";

export function ElevatedBar() {
  const status = useRemote("status.get", {}, ["allowlist.changed", "prompts.changed"]);
  const now = useNow(1000);
  const [problem, setProblem] = useState<string | null>(null);
  const elevated = (status.data?.elevated ?? []).filter((e) => e.until > now);
  if (elevated.length === 0 && problem === null) return null;
  const end = async () => {
    const failed = await call("elevation.end", {}).then(
      () => null,
      (e: Error) => e.message,
    );
    setProblem(failed);
    status.reload();
  };
  return (
    <section className="elevated-bar" aria-label="Elevated mode">
      {elevated.map((e) => (
        <Message key={e.agentId} tone="warn">
          Elevated: {e.agentId === "*" ? "every agent" : `agent ${e.agentId}`} runs every command without
          asking, {timeLeft(e.until - now)} left (until {clock(e.until)}).
        </Message>
      ))}
      {elevated.length > 0 ? (
        <button type="button" className="button" onClick={() => void end()}>
          End elevated mode
        </button>
      ) : null}
      {problem ? <Message tone="error">{problem}</Message> : null}
    </section>
  );
}
