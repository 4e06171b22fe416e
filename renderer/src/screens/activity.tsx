// Activity (ui.md "Status and activity"): the audit log as a filterable list — time, command, decision,
// who decided, exit code — newest first.
import { useState } from "react";
import type { ActivityQuery, AuditRecord } from "../../../src/ipc/contract.js";
import { useDebounced, useRemote } from "../bridge.js";
import { Empty, Loading, Message, Pill, type Tone } from "../components/common.js";
import { clock } from "../words.js";

const DECISION: Record<AuditRecord["decision"], { label: string; tone: Tone }> = {
  "allow-once": { label: "allowed", tone: "good" },
  "allow-always": { label: "allowed always", tone: "good" },
  deny: { label: "denied", tone: "bad" },
  timeout: { label: "timed out", tone: "warn" },
  "no-approver": { label: "nobody to ask", tone: "warn" },
  cancelled: { label: "cancelled", tone: "neutral" },
};

function who(decidedBy: string): string {
  if (decidedBy.startsWith("rule:")) return `rule ${decidedBy.slice(5)}`;
  if (decidedBy === "user") return "you";
  if (decidedBy === "fallback") return "askFallback";
  return "policy";
}

export function ActivityScreen() {
  const [text, setText] = useState("");
  const [decision, setDecision] = useState("");
  const [decidedBy, setDecidedBy] = useState("");
  const [event, setEvent] = useState("");
  const settledText = useDebounced(text, 200);
  const query: ActivityQuery = {
    ...(settledText.trim() ? { text: settledText.trim() } : {}),
    ...(decision ? { decision: decision as NonNullable<ActivityQuery["decision"]> } : {}),
    ...(decidedBy ? { decidedBy: decidedBy as NonNullable<ActivityQuery["decidedBy"]> } : {}),
    ...(event ? { event: event as NonNullable<ActivityQuery["event"]> } : {}),
  };
  const list = useRemote(
    "activity.list",
    query,
    ["prompts.changed", "allowlist.changed"],
    JSON.stringify(query),
  );
  return (
    <div className="screen">
      <h1>Activity</h1>
      <div className="toolbar filters">
        <label htmlFor="activity-text" className="visually-hidden">
          Search commands
        </label>
        <input
          id="activity-text"
          type="search"
          className="grow"
          placeholder="Search command, folder, agent"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        <label htmlFor="activity-decision">Decision</label>
        <select id="activity-decision" value={decision} onChange={(e) => setDecision(e.target.value)}>
          <option value="">any</option>
          <option value="allowed">allowed</option>
          <option value="denied">denied</option>
          <option value="timeout">timed out</option>
          <option value="no-approver">nobody to ask</option>
          <option value="cancelled">cancelled</option>
        </select>
        <label htmlFor="activity-who">Decided by</label>
        <select id="activity-who" value={decidedBy} onChange={(e) => setDecidedBy(e.target.value)}>
          <option value="">anyone</option>
          <option value="rule">a rule</option>
          <option value="user">you</option>
          <option value="fallback">askFallback</option>
          <option value="policy">the policy</option>
        </select>
        <label htmlFor="activity-event">Show</label>
        <select id="activity-event" value={event} onChange={(e) => setEvent(e.target.value)}>
          <option value="">decisions and runs</option>
          <option value="decision">decisions</option>
          <option value="run">runs</option>
        </select>
        <button type="button" className="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {list.error ? <Message tone="error">{list.error}</Message> : null}
      {!list.data ? (
        <Loading what="activity" />
      ) : list.data.records.length === 0 ? (
        <Empty>
          {list.data.scanned === 0 ? "Nothing has been asked for yet." : "Nothing matches the filters."}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table activity" aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Command</th>
                <th scope="col">Decision</th>
                <th scope="col">Decided by</th>
                <th scope="col">Exit</th>
                <th scope="col">Agent</th>
              </tr>
            </thead>
            <tbody>
              {list.data.records.map((r) => (
                <tr key={`${r.runId}-${r.event}`}>
                  <td className="nowrap">{clock(r.ts)}</td>
                  <td>
                    <span className="mono selectable wrap">{r.command}</span>
                    <div className="cell-note">
                      {r.event === "run" ? "ran" : "decided"} in <span className="mono">{r.cwd}</span> ·{" "}
                      {r.reason}
                    </div>
                  </td>
                  <td>
                    <Pill tone={DECISION[r.decision].tone}>{DECISION[r.decision].label}</Pill>
                  </td>
                  <td>{who(r.decidedBy)}</td>
                  <td>{r.event === "run" ? (r.exitCode ?? (r.timedOut ? "timed out" : "—")) : ""}</td>
                  <td>{r.agentId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
