// Status (ui.md "Status and activity"): backend URL, connection state with the last failure, device
// id and name, heartbeat age, running tasks, the approval socket, pending approvals.
import { useEffect, useState } from "react";
import type { ConnectionState, Screen } from "../../../src/ipc/contract.js";
import { call, useRemote } from "../bridge.js";
import {
  CopyText,
  Empty,
  KeyValue,
  Loading,
  Message,
  Pill,
  Section,
  type Tone,
} from "../components/common.js";
import { TableScroll } from "../components/table.js";
import { Button } from "../components/buttons.js";
import { ProtectionSummary, useProtection } from "../components/protection.js";
import { clock, plural, relativeTime, timeLeft } from "../words.js";
import {
  ELEVATION_AGENTS,
  ELEVATION_DURATIONS,
  elevationDuration,
  elevationWho,
} from "../../../src/shared/elevation-choices.js";

const STATE_WORDS: Record<ConnectionState["state"], { label: string; tone: Tone; help: string }> = {
  registered: {
    label: "Connected",
    tone: "good",
    help: "The backend can send tasks and commands to this device.",
  },
  connecting: { label: "Connecting", tone: "info", help: "Gatehouse is reaching the backend." },
  offline: {
    label: "Offline",
    tone: "warn",
    help: "The backend cannot be reached; Gatehouse keeps retrying.",
  },
  "sign-in-required": {
    label: "Sign-in required",
    tone: "bad",
    help: "The backend refused the token. Save a new token in Settings.",
  },
  unconfigured: { label: "Not set up", tone: "neutral", help: "Set the backend URL and token in Settings." },
  paused: { label: "Paused", tone: "neutral", help: "The device is paused: the backend cannot reach it." },
};

/** The next step for a connection state that needs the person, if any. */
const NEXT_STEP: Partial<Record<ConnectionState["state"], string>> = {
  "sign-in-required": "Enter a new token in Settings",
  unconfigured: "Set up the backend in Settings",
};

export function StatusScreen(props: {
  pending: number;
  onReview: () => void;
  onOpen: (screen: Screen) => void;
}) {
  const protection = useProtection();
  const status = useRemote("status.get", {}, [
    "status.connection",
    "status.tasks",
    "status.terminals",
    "prompts.changed",
    "allowlist.changed",
  ]);
  const [now, setNow] = useState(Date.now());
  const [problem, setProblem] = useState<string | null>(null);
  const [elevateWho, setElevateWho] = useState<string>(ELEVATION_AGENTS[0].agentId);
  const [elevateFor, setElevateFor] = useState<number>(ELEVATION_DURATIONS[0].forMs);
  // Elevation is never one click (issue 32): the choice is said in one sentence and confirmed.
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const { reload } = status;
  useEffect(() => {
    const timer = setInterval(reload, 5000);
    return () => clearInterval(timer);
  }, [reload]);

  if (!status.data)
    return status.error ? <Message tone="error">{status.error}</Message> : <Loading what="status" />;
  const s = status.data;
  const c = s.connection;
  const words = c ? STATE_WORDS[c.state] : null;
  const togglePause = async () => {
    const result = await call("device.setPaused", { paused: c?.state !== "paused" }).catch((e: Error) => ({
      ok: false as const,
      reason: e.message,
    }));
    setProblem(result.ok ? null : result.reason);
    status.reload();
  };
  const elevated = s.elevated.filter((e) => e.until > now);
  const changeElevation = async (on: boolean) => {
    const result = on
      ? await call("elevation.start", {
          forMs: elevateFor,
          ...(elevateWho === "*" ? {} : { agentId: elevateWho }),
        }).catch((e: Error) => ({
          ok: false as const,
          reason: e.message,
        }))
      : await call("elevation.end", {}).then(
          () => ({ ok: true as const }),
          (e: Error) => ({ ok: false as const, reason: e.message }),
        );
    setConfirming(false);
    setProblem(result.ok ? null : result.reason);
    status.reload();
  };
  const heartbeat = c?.lastHeartbeatAt ? Date.parse(c.lastHeartbeatAt) : null;
  return (
    <div className="screen">
      <h1>Status</h1>
      <Section title="Protection">
        {protection.data ? (
          <ProtectionSummary data={protection.data} onOpen={props.onOpen} elevated={elevated} now={now} />
        ) : (
          <Loading what="the protection mode" />
        )}
      </Section>
      <Section
        title="Elevated mode"
        actions={
          elevated.length ? (
            <button type="button" className="button" onClick={() => void changeElevation(false)}>
              End elevated mode
            </button>
          ) : null
        }
      >
        {elevated.length === 0 ? (
          <>
            <p className="muted">Off: every agent follows the policy.</p>
            <div className="toolbar elevation-choice">
              <label htmlFor="elevate-who">Elevate</label>
              <select id="elevate-who" value={elevateWho} onChange={(e) => setElevateWho(e.target.value)}>
                {ELEVATION_AGENTS.map((a) => (
                  <option key={a.agentId} value={a.agentId}>
                    {a.words}
                  </option>
                ))}
              </select>
              <label htmlFor="elevate-for">for</label>
              <select
                id="elevate-for"
                value={elevateFor}
                onChange={(e) => setElevateFor(Number(e.target.value))}
              >
                {ELEVATION_DURATIONS.map((d) => (
                  <option key={d.forMs} value={d.forMs}>
                    {d.words}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="button danger"
                onClick={() => setConfirming(true)}
                disabled={confirming}
              >
                Elevate {elevationWho(elevateWho)} for {elevationDuration(elevateFor)}
              </button>
            </div>
            {confirming ? (
              <div className="elevation-confirm" role="group" aria-label="Confirm elevated mode">
                <Message tone="warn">
                  {elevateWho === "*" ? "Every agent" : `Agent ${elevateWho}`} will run every command without
                  asking you for {elevationDuration(elevateFor)}, until {clock(Date.now() + elevateFor)}.
                </Message>
                <div className="button-row">
                  <button type="button" className="button" onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                  <button type="button" className="button danger" onClick={() => void changeElevation(true)}>
                    Yes, elevate
                  </button>
                </div>
              </div>
            ) : null}
          </>
        ) : (
          elevated.map((e) => (
            <Message key={e.agentId} tone="warn">
              {e.agentId === "*" ? "Every agent" : `Agent ${e.agentId}`} runs everything without asking
              (security=full): {timeLeft(e.until - now)} left, until {clock(e.until)}.
            </Message>
          ))
        )}
      </Section>
      <Section
        title="Backend connection"
        actions={
          c ? (
            <button type="button" className="button" onClick={() => void togglePause()}>
              {c.state === "paused" ? "Resume device" : "Pause device"}
            </button>
          ) : null
        }
      >
        {c && words ? (
          <>
            <p className="state-line">
              <Pill tone={words.tone}>{words.label}</Pill> <span className="muted">{words.help}</span>
            </p>
            {NEXT_STEP[c.state] ? (
              <div className="button-row">
                <Button kind="primary" onClick={() => props.onOpen("settings")}>
                  {NEXT_STEP[c.state]}
                </Button>
              </div>
            ) : null}
            {c.lastError ? (
              <Message tone={c.state === "registered" ? "info" : "warn"}>Last failure: {c.lastError}</Message>
            ) : null}
            <KeyValue
              rows={[
                [
                  "Backend URL",
                  c.backendUrl ? <CopyText text={c.backendUrl} label="backend URL" /> : "not set",
                ],
                ["Device", c.deviceName ? `${c.deviceName}` : "—"],
                ["Device id", c.deviceId ? <CopyText text={c.deviceId} label="device id" /> : "—"],
                [
                  "Last heartbeat",
                  heartbeat ? `${relativeTime(heartbeat, now)} (${clock(heartbeat)})` : "none yet",
                ],
                ["Registered", c.registeredAt ? clock(Date.parse(c.registeredAt)) : "—"],
                ...(c.state === "offline" && c.nextRetryAt
                  ? ([["Next attempt", relativeTime(Date.parse(c.nextRetryAt), now)]] as Array<
                      [string, string]
                    >)
                  : []),
              ]}
            />
          </>
        ) : (
          <Empty>The device connection is not running in this app.</Empty>
        )}
        {problem ? (
          <Message tone="error" live>
            {problem}
          </Message>
        ) : null}
      </Section>
      <Section
        title="Pending approvals"
        actions={
          props.pending > 0 ? (
            <button type="button" className="button primary" onClick={props.onReview}>
              Review
            </button>
          ) : null
        }
      >
        <p>
          {props.pending > 0
            ? `${plural(props.pending, "request")} waiting for you.`
            : "Nothing is waiting for you."}
        </p>
      </Section>
      <Section title="Running tasks">
        {s.tasks.length === 0 ? (
          <Empty>No tasks are running.</Empty>
        ) : (
          <TableScroll label="Running tasks">
            <table className="table" aria-label="Running tasks">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Folder</th>
                  <th scope="col">Started</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.tasks.map((t) => (
                  <tr key={`${t.taskId}/${t.subtaskId ?? ""}`}>
                    <td className="mono">
                      {t.taskId}
                      {t.subtaskId ? ` / ${t.subtaskId}` : ""}
                    </td>
                    <td>{t.agent}</td>
                    <td className="mono wrap">{t.workdir ?? "—"}</td>
                    <td>{relativeTime(t.startedAt, now)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="link-button danger"
                        aria-label={`Stop task ${t.taskId}`}
                        onClick={() =>
                          void call("tasks.stop", { taskId: t.taskId, subtaskId: t.subtaskId }).then((r) => {
                            setProblem(
                              r.ok ? (r.stopped ? null : "That task had already finished.") : r.reason,
                            );
                            status.reload();
                          })
                        }
                      >
                        Stop
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Section>
      <Section title="Open terminals">
        {s.terminals.length === 0 ? (
          <Empty>The backend has no terminal open on this device.</Empty>
        ) : (
          <TableScroll label="Open terminals">
            <table className="table" aria-label="Open terminals">
              <thead>
                <tr>
                  <th scope="col">Folder</th>
                  <th scope="col">Shell</th>
                  <th scope="col">Allowed by</th>
                  <th scope="col">Opened</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.terminals.map((t) => (
                  <tr key={t.sessionId}>
                    <td className="mono wrap">{t.folder}</td>
                    <td className="mono">{t.shell}</td>
                    <td>{t.decidedBy === "user" ? "you" : t.decidedBy}</td>
                    <td>{relativeTime(t.openedAt, now)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="link-button danger"
                        aria-label={`Close the terminal in ${t.folder}`}
                        onClick={() =>
                          void call("terminals.close", { sessionId: t.sessionId }).then((r) => {
                            setProblem(
                              r.ok ? (r.closed ? null : "That terminal had already closed.") : r.reason,
                            );
                            status.reload();
                          })
                        }
                      >
                        Close
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Section>
      <Section title="Approval socket">
        <p className="state-line">
          <Pill tone={s.socket.state === "listening" ? "good" : "bad"}>
            {s.socket.state === "listening" ? "Listening" : "Stopped"}
          </Pill>{" "}
          <span className="muted">{plural(s.socket.connections, "client")} connected</span>
        </p>
        <KeyValue
          rows={[
            ["Socket", <CopyText key="socket" text={s.socket.path} label="socket path" path />],
            [
              "Approvals file",
              <span key="file">
                <CopyText text={s.approvalsFile.path} label="approvals file path" reveal path />
                {s.approvalsFile.status === "invalid" ? (
                  <Message tone="error">{s.approvalsFile.error}</Message>
                ) : null}
                {s.approvalsFile.status === "missing" ? (
                  <span className="muted"> (not created yet)</span>
                ) : null}
              </span>,
            ],
            ["Home", <CopyText key="home" text={s.home} label="home folder" reveal path />],
            ["Version", s.version],
          ]}
        />
      </Section>
    </div>
  );
}
