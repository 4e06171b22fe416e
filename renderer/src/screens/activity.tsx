// Activity (ui.md "Status and activity"): the audit log as a filterable list — time, command, decision,
// who decided, exit code — newest first.
import { useState } from "react";
import type { ActivityQuery, AuditRecord } from "../../../src/ipc/contract.js";
import { useDebounced, useRemote } from "../bridge.js";
import { Empty, Loading, Message, Pill, type Tone } from "../components/common.js";
import { clockParts, sourceWords, timeOfDay } from "../words.js";
import { elevationDuration, elevationWho } from "../../../src/shared/elevation-choices.js";
import { PathText } from "../components/path-text.js";
import { TableScroll } from "../components/table.js";

const DECISION: Record<AuditRecord["decision"], { label: string; tone: Tone }> = {
  "allow-once": { label: "allowed", tone: "good" },
  "allow-always": { label: "allowed always", tone: "good" },
  deny: { label: "denied", tone: "bad" },
  timeout: { label: "timed out", tone: "warn" },
  "no-approver": { label: "nobody to ask", tone: "warn" },
  cancelled: { label: "cancelled", tone: "neutral" },
};

/** Elevation lines get their own pill: a start raises protection, an end puts it back. */
const ELEVATION_PILL = {
  started: { label: "raised to full", tone: "warn" as Tone },
  ended: { label: "back to policy", tone: "neutral" as Tone },
};

const FRONT_ENDS: Record<string, string> = {
  tray: "from the tray",
  app: "from the app's window",
  cli: "from the command line",
};

/** `elevate:tray` → "from the tray". */
function fromWhere(source: string): string {
  const by = source.startsWith("elevate:") ? source.slice("elevate:".length) : source;
  return FRONT_ENDS[by] ?? `from ${by}`;
}

/**
 * An elevation line in words: "Protection raised to full for every agent for 15 min by you, from the
 * tray (until 14:05)" or "Elevated mode of every agent ended early by you, from the app's window".
 * Lines written before `elevation` was recorded carry the duration in their command (`elevate * for 15m`).
 */
function elevationSentence(r: AuditRecord): string {
  const who = elevationWho(r.agentId);
  if (r.decision === "deny") return `Elevated mode of ${who} ended early by you, ${fromWhere(r.source)}`;
  const forMs = r.elevation?.forMs ?? minutesIn(r.command);
  const duration = forMs !== null ? ` for ${elevationDuration(forMs)}` : "";
  const until = r.elevation?.until;
  return `Protection raised to full for ${who}${duration} by you, ${fromWhere(r.source)}${until ? ` (until ${timeOfDay(until)})` : ""}`;
}

function minutesIn(command: string): number | null {
  const match = /\bfor (\d+)m$/.exec(command);
  return match ? Number(match[1]) * 60_000 : null;
}

function who(decidedBy: string): string {
  if (decidedBy.startsWith("rule:")) return `rule ${decidedBy.slice(5)}`;
  if (decidedBy === "user") return "you";
  if (decidedBy === "fallback") return "askFallback";
  return "policy";
}

/** How a command that ran ended, under its decision (a column of its own was empty on every decision). */
function exitWords(r: AuditRecord): string {
  if (typeof r.exitCode === "number") return `exit ${r.exitCode}`;
  if (r.timedOut) return "timed out";
  return r.signal ? `ended by ${r.signal}` : "no exit code";
}

/** When a record was written: its day and time, each kept whole, on two lines where the column is narrow. */
function When(props: { ts: number }) {
  const { day, time } = clockParts(props.ts);
  return (
    <>
      <span className="nowrap">{day},</span> <span className="nowrap">{time}</span>
    </>
  );
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
          <option value="elevation">elevated mode</option>
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
        <TableScroll label="Audit log">
          <table className="table activity" aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Command</th>
                <th scope="col">Decision</th>
                <th scope="col">Decided by</th>
                <th scope="col">Agent</th>
              </tr>
            </thead>
            <tbody>
              {list.data.records.map((r) =>
                r.event === "elevation" ? (
                  <tr key={`${r.runId}-${r.event}`} data-event="elevation">
                    <td>
                      <When ts={r.ts} />
                    </td>
                    <td>{elevationSentence(r)}</td>
                    <td>
                      <Pill tone={ELEVATION_PILL[r.decision === "deny" ? "ended" : "started"].tone}>
                        {ELEVATION_PILL[r.decision === "deny" ? "ended" : "started"].label}
                      </Pill>
                    </td>
                    <td>{who(r.decidedBy)}</td>
                    <td>{r.agentId === "*" ? "every agent" : r.agentId}</td>
                  </tr>
                ) : (
                  <tr key={`${r.runId}-${r.event}`}>
                    <td>
                      <When ts={r.ts} />
                    </td>
                    <td>
                      <span className="mono selectable wrap">{r.command}</span>
                      <div className="cell-note">
                        {r.event === "run" ? "ran" : "decided"} in <PathText className="mono" text={r.cwd} />{" "}
                        · {r.reason}
                      </div>
                    </td>
                    <td>
                      <Pill tone={DECISION[r.decision].tone}>{DECISION[r.decision].label}</Pill>
                      {r.event === "run" ? <div className="cell-note">{exitWords(r)}</div> : null}
                    </td>
                    <td>{who(r.decidedBy)}</td>
                    <td>
                      {r.agentId}
                      <div className="cell-note" data-provenance={r.verified ? "verified" : "claimed"}>
                        {r.verified ? (
                          <span className="verified-note">task {r.verified.taskId}, verified</span>
                        ) : (
                          `${sourceWords(r.source)}, as claimed${r.identity === "unproven" ? " (unproven: least-trusted rules)" : ""}`
                        )}
                      </div>
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </TableScroll>
      )}
    </div>
  );
}
