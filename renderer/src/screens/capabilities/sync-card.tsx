// The sync card of the capability browser (issue 16): what the last sync did in words first (the digest
// is a details line), live progress pushed by the sync engine (items done of total, the current item,
// bytes while downloading) with Cancel while a cancel still changes nothing, the items that need
// attention with a way to each, and a next step when nothing has been synced.
import type { CapabilitiesState, SyncProgress } from "../../../../src/ipc/contract.js";
import { Button } from "../../components/buttons.js";
import { CopyText, KeyValue, Message, Section } from "../../components/common.js";
import { clock, plural, relativeTime } from "../../words.js";

type Sync = CapabilitiesState["sync"];

const PHASE_WORDS: Record<SyncProgress["phase"], string> = {
  remove: "Removing",
  download: "Downloading",
  install: "Installing",
  write: "Writing the manifest",
  cleanup: "Cleaning up",
  done: "Done",
};

/** `1.2 MB`: sizes in the units people read (decimal, as file managers on macOS show them). */
export function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}

/** "Downloading image-gen — 1.2 MB of 3.4 MB · 1 of 3 packages ready". */
function progressWords(p: SyncProgress): string {
  const item = p.item ? ` ${p.item}` : "";
  const bytes = p.bytes
    ? ` — ${sizeWords(p.bytes.received)}${p.bytes.total !== null ? ` of ${sizeWords(p.bytes.total)}` : ""}`
    : "";
  const count =
    p.phase === "download"
      ? `${p.done} of ${plural(p.total, "package")} ready`
      : `${p.done} of ${plural(p.total, "item")} done`;
  return `${PHASE_WORDS[p.phase]}${item}${bytes} · ${count}`;
}

export interface SyncProblem {
  /** The row to show when asked ("Show both paths"). */
  rowId: string | null;
  name: string;
  kind: "conflict" | "failed";
  reason: string;
}

export function SyncCard(props: {
  sync: Sync;
  progress: SyncProgress | null;
  problems: SyncProblem[];
  /** Wegent items known to this device (rows), to tell "nothing synced" apart. */
  managedCount: number;
  requesting: boolean;
  onRequest: () => void;
  onCancel: () => void;
  onShow: (rowId: string) => void;
  onSettings: () => void;
}) {
  const { sync, progress } = props;
  const last = sync.last;
  const connected = sync.connection === "registered";
  const items = last ? last.skills.length + last.plugins.length + last.mcps.length : 0;
  const headline = progress
    ? "A sync is running."
    : !last
      ? sync.lastSyncAt
        ? `Last synced ${relativeTime(Date.parse(sync.lastSyncAt))}.`
        : "Nothing has been synced yet."
      : last.success
        ? `All ${plural(items, "item")} synced ${relativeTime(Date.parse(last.finished_at))}.`
        : `${plural(props.problems.length, "item")} of ${items} need${props.problems.length === 1 ? "s" : ""} attention (synced ${relativeTime(Date.parse(last.finished_at))}).`;
  const request = (
    <Button onClick={props.onRequest} disabled={props.requesting || progress !== null}>
      Apply the last sync again
    </Button>
  );
  return (
    <Section title="Sync" actions={props.managedCount > 0 || props.problems.length ? request : undefined}>
      <p className="sync-headline">{headline}</p>
      {progress ? (
        <div className="progress-block" aria-label="Sync in progress" role="group">
          <div className="progress-line">
            <span data-testid="sync-progress-text">{progressWords(progress)}</span>
            {progress.cancellable ? (
              <Button small onClick={props.onCancel}>
                Cancel sync
              </Button>
            ) : (
              <span className="muted">Applying: it finishes in a moment and cannot be cancelled now.</span>
            )}
          </div>
          <progress
            className="progress"
            max={Math.max(1, progress.bytes?.total ?? progress.total)}
            // A download of unknown size with nothing ready yet is indeterminate (no value), not "0 %".
            value={
              progress.bytes?.total
                ? progress.bytes.received
                : progress.phase === "download" && progress.done === 0
                  ? undefined
                  : progress.done
            }
            aria-label="Capability sync progress"
          />
        </div>
      ) : null}
      {sync.manifestError ? <Message tone="error">{sync.manifestError}</Message> : null}
      {!progress && props.managedCount === 0 && !props.problems.length ? (
        connected ? (
          <div className="empty-next">
            <p>
              Connected, but the backend has sent no skills, plugins or MCP servers for this device. Add them
              for this device in Wegent, then sync this device from the Wegent web page (Gatehouse cannot ask
              the backend for a sync).
            </p>
            {request}
          </div>
        ) : (
          <div className="empty-next">
            <p>
              Gatehouse is not connected to a backend
              {sync.connection && sync.connection !== "unconfigured" ? ` (${sync.connection})` : ""}, so
              nothing is synced. Connect in Settings: the backend sends this device&apos;s skills, plugins and
              MCP servers when it registers.
            </p>
            <Button kind="primary" onClick={props.onSettings}>
              Open Settings
            </Button>
          </div>
        )
      ) : null}
      {props.problems.length ? (
        <ul className="sync-problems" aria-label="Items that need attention">
          {props.problems.map((p) => (
            <li key={`${p.kind}-${p.name}-${p.rowId ?? ""}`}>
              <strong>{p.name}</strong>
              <span className="sync-problem-reason bad-text">{p.reason}</span>
              {p.rowId ? (
                <Button
                  small
                  onClick={() => props.onShow(p.rowId as string)}
                  label={`${p.kind === "conflict" ? "Show both paths" : "Show details"} of ${p.name}`}
                >
                  {p.kind === "conflict" ? "Show both paths" : "Show details"}
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {last || sync.revision > 0 ? (
        <details className="sync-details">
          <summary>Sync details</summary>
          <KeyValue
            rows={[
              [
                "Last sync",
                sync.lastSyncAt
                  ? `${relativeTime(Date.parse(sync.lastSyncAt))} (${clock(Date.parse(sync.lastSyncAt))})`
                  : "never",
              ],
              ["Mode", last?.mode ?? "—"],
              ["Revision", String(sync.revision)],
              ["Digest", <CopyText key="d" text={sync.digest} label="digest" />],
            ]}
          />
        </details>
      ) : null}
    </Section>
  );
}
