// The test box (ui.md "Allowlist editor"): type a command and a folder, see how the agent's command
// would be decided right now — the outcome, why, and each part of the command.
import { useState } from "react";
import type { Explanation } from "../../../../src/ipc/contract.js";
import { call } from "../../bridge.js";
import { Message, Pill } from "../../components/common.js";
import { SegmentList } from "../../components/explanation.js";
import { TextField } from "../../components/field.js";
import { useSettledAnswer } from "../../components/use-settled.js";
import { OUTCOME_WORDS, reasonWords } from "../../words.js";
import { agentLabel } from "./labels.js";

type Answer = { explanation: Explanation } | { reason: string };

const OUTCOME_TONE = { run: "good", prompt: "warn", deny: "bad" } as const;

function Outcome(props: { explanation: Explanation }) {
  const x = props.explanation;
  return (
    <>
      <p className="state-line">
        <Pill tone={OUTCOME_TONE[x.outcome]}>{OUTCOME_WORDS[x.outcome]}</Pill> <span>{reasonWords(x)}</span>
      </p>
      <p className="muted">
        security {x.security} · ask {x.ask} · if nobody answers: {x.askFallback}
      </p>
      <SegmentList explanation={x} />
    </>
  );
}

export function TestBox(props: {
  agentId: string;
  /** Changes when the allowlist does, so the explanation is asked again. */
  version: number;
}) {
  const [command, setCommand] = useState("");
  const [cwd, setCwd] = useState("");
  const request =
    command.trim() === ""
      ? null
      : { agentId: props.agentId, command, ...(cwd.trim() ? { cwd } : {}), version: props.version };
  const { answer } = useSettledAnswer(
    request,
    ({ version: _version, ...explain }): Promise<Answer> =>
      call("allowlist.explain", explain).then(
        (r) => (r.ok ? { explanation: r.explanation } : { reason: r.reason }),
        (e: Error) => ({ reason: e.message }),
      ),
    { pauseMs: 150 },
  );
  return (
    <div className="test-box">
      <div className="editor-grid">
        <TextField
          id="test-command"
          label="Command"
          wide
          mono
          value={command}
          placeholder="git status && npm test"
          onChange={setCommand}
        />
        <TextField
          id="test-cwd"
          label="In folder"
          wide
          mono
          value={cwd}
          placeholder="~ (home)"
          onChange={setCwd}
        />
      </div>
      <div className="test-result" aria-live="polite" data-testid="test-result">
        {answer === null ? (
          <p className="muted">Type a command to see how {agentLabel(props.agentId)} would be decided.</p>
        ) : "explanation" in answer ? (
          <Outcome explanation={answer.explanation} />
        ) : (
          <Message tone="warn">{answer.reason}</Message>
        )}
      </div>
    </div>
  );
}
