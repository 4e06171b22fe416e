// Settings (ui.md "Status and activity"): backend URL and token (the token goes to the keychain and is
// never shown back), launch at login, the policy preset, socket token rotation, the logs folder.
import { useState } from "react";
import { call, useRemote } from "../bridge.js";
import { CopyText, Loading, Message, Section } from "../components/common.js";

type Note = { tone: "ok" | "error"; text: string } | null;

/** A backend reached over plain http on another machine: the token and every task travel unencrypted. */
export function insecureBackend(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" && !["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
  } catch {
    return false;
  }
}

export function SettingsScreen() {
  const state = useRemote("settings.get", {}, ["allowlist.changed", "status.connection"]);
  const [url, setUrl] = useState<string | null>(null);
  const [token, setToken] = useState("");
  const [backendNote, setBackendNote] = useState<Note>(null);
  const [tokenNote, setTokenNote] = useState<Note>(null);
  const [generalNote, setGeneralNote] = useState<Note>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [confirmTrust, setConfirmTrust] = useState(false);

  if (!state.data)
    return state.error ? <Message tone="error">{state.error}</Message> : <Loading what="settings" />;
  const s = state.data;
  const shownUrl = url ?? s.backendUrl ?? "";

  const saveUrl = async () => {
    const result = await call("settings.setBackendUrl", { url: shownUrl });
    setBackendNote(
      result.ok
        ? { tone: "ok", text: `Saved ${result.url}. Reconnecting.` }
        : { tone: "error", text: result.reason },
    );
    if (result.ok) {
      setUrl(null);
      state.reload();
    }
  };
  const saveToken = async () => {
    const result = await call("settings.setToken", { token });
    setToken("");
    setTokenNote(
      result.ok
        ? {
            tone: "ok",
            text:
              result.location === "file"
                ? "Saved in the fallback file (no keychain is reachable). Reconnecting."
                : "Saved in the keychain. Reconnecting.",
          }
        : { tone: "error", text: result.reason },
    );
    state.reload();
  };
  const clearToken = async () => {
    const result = await call("settings.clearToken", {});
    setTokenNote({ tone: "ok", text: result.removed ? "The token was removed." : "No token was stored." });
    state.reload();
  };
  const general = async (work: Promise<{ ok: true } | { ok: false; reason: string }>, done: string) => {
    const result = await work.catch((e: Error) => ({ ok: false as const, reason: e.message }));
    setGeneralNote(result.ok ? { tone: "ok", text: done } : { tone: "error", text: result.reason });
    state.reload();
  };

  return (
    <div className="screen">
      <h1>Settings</h1>
      <Section title="Backend">
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void saveUrl();
          }}
        >
          <label htmlFor="backend-url">Backend URL</label>
          <input
            id="backend-url"
            className="mono grow"
            type="url"
            value={shownUrl}
            placeholder="https://wegent.example.com"
            spellCheck={false}
            onChange={(e) => setUrl(e.target.value)}
          />
          <button type="submit" className="button" disabled={url === null}>
            Save
          </button>
        </form>
        {insecureBackend(shownUrl) ? (
          <Message tone="warn">
            This backend is reached over plain http://: the token and every task travel unencrypted and can be
            read or changed on the way. Use https:// unless the backend runs on this machine.
          </Message>
        ) : null}
        {backendNote ? (
          <Message tone={backendNote.tone} live>
            {backendNote.text}
          </Message>
        ) : null}
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void saveToken();
          }}
        >
          <label htmlFor="backend-token">Token</label>
          <input
            id="backend-token"
            className="mono grow"
            type="password"
            autoComplete="off"
            value={token}
            placeholder={
              s.tokenStored ? "A token is stored; paste a new one to replace it" : "Paste the backend token"
            }
            onChange={(e) => setToken(e.target.value)}
            aria-describedby="token-help"
          />
          <button type="submit" className="button" disabled={token.trim() === ""}>
            Save token
          </button>
          {s.tokenStored ? (
            <button type="button" className="button" onClick={() => void clearToken()}>
              Remove
            </button>
          ) : null}
        </form>
        <p id="token-help" className="muted">
          {s.tokenFromEnv
            ? "WEGENT_AUTH_TOKEN is set in Gatehouse's environment and takes precedence over a stored token."
            : s.tokenStored
              ? `A token is stored (${s.tokenLocation === "file" ? "in the fallback file" : "in the keychain"}). It is never shown.`
              : "No token is stored. It is kept in the keychain and never shown again."}
        </p>
        {s.tokenStored && s.tokenLocation === "file" && !s.tokenFromEnv ? (
          <Message tone="warn">
            The token is kept in a file because no keychain could be reached: any program running as you can
            read it. Unlock or install a keychain (Secret Service) and save the token again to move it there.
          </Message>
        ) : null}
        {tokenNote ? (
          <Message tone={tokenNote.tone} live>
            {tokenNote.text}
          </Message>
        ) : null}
      </Section>
      <Section title="Policy preset">
        <fieldset className="radio-group">
          <legend className="visually-hidden">Policy preset for every agent without its own settings</legend>
          {s.presets.map((p) => (
            <label key={p.id} className="radio">
              <input
                type="radio"
                name="preset"
                value={p.id}
                checked={s.preset === p.id}
                onChange={() => {
                  // Trusting the machine turns every prompt off: it takes a second, deliberate step.
                  if (p.id === "trust") return setConfirmTrust(true);
                  setConfirmTrust(false);
                  void general(call("settings.applyPreset", { preset: p.id }), `Preset set to ${p.label}.`);
                }}
              />
              <span>
                <strong>
                  {p.label}
                  {p.recommended ? " (recommended)" : ""}
                </strong>
                <span className="muted block">{p.description}</span>
              </span>
            </label>
          ))}
          {s.preset === null ? <p className="muted">The defaults are customised (see Allowlist).</p> : null}
        </fieldset>
        {confirmTrust ? (
          <div className="confirm" role="group" aria-label="Confirm Trust this machine">
            <Message tone="warn">
              Trust this machine lets every command an agent asks for run without asking you — including ones
              that delete files or run code downloaded from the internet. Nothing is asked until you choose
              another preset.
            </Message>
            <div className="button-row">
              <button type="button" className="button" onClick={() => setConfirmTrust(false)}>
                Cancel
              </button>
              <button
                type="button"
                className="button danger"
                onClick={() => {
                  setConfirmTrust(false);
                  void general(
                    call("settings.applyPreset", { preset: "trust" }),
                    "Preset set to Trust this machine.",
                  );
                }}
              >
                Trust this machine
              </button>
            </div>
          </div>
        ) : null}
      </Section>
      <Section title="General">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={s.launchAtLogin}
            onChange={(e) =>
              void general(
                call("settings.setLaunchAtLogin", { enabled: e.target.checked }),
                e.target.checked
                  ? "Gatehouse starts when you log in."
                  : "Gatehouse no longer starts when you log in.",
              )
            }
          />
          <span>Start Gatehouse when I log in</span>
        </label>
        {!s.launchAtLoginSupported ? <p className="muted">Applied when the tray app runs.</p> : null}
        <label className="checkbox">
          <input
            type="checkbox"
            checked={s.execEvents}
            onChange={(e) =>
              void general(
                call("settings.setExecEvents", { enabled: e.target.checked }),
                e.target.checked
                  ? "The backend now hears when each of its commands starts, ends or is refused."
                  : "The backend no longer hears about each of its commands.",
              )
            }
          />
          <span>Tell the backend when each of its commands starts, ends or is refused</span>
        </label>
        <p className="muted">
          Off by default: Wegent backends have no use for these events, and they carry command lines and the
          end of each command's output.
        </p>
        <div className="setting-line">
          <span>Logs</span>
          <CopyText text={s.logsDir} label="logs folder" path />
          <button
            type="button"
            className="button"
            onClick={() => void general(call("settings.openLogs", {}), "Opened the logs folder.")}
          >
            Open logs folder
          </button>
        </div>
      </Section>
      <Section title="Approval socket">
        <p className="muted">
          Local clients (the Claude Code hook, scripts) sign their requests with a token kept in{" "}
          <span className="mono">{s.approvalsPath}</span>. Rotating it refuses every client that still holds
          the old one.
        </p>
        <div className="setting-line">
          <span>Socket</span>
          <CopyText text={s.socketPath} label="socket path" path />
        </div>
        {confirmRotate ? (
          <div className="button-row">
            <span>Rotate the socket token now?</span>
            <button type="button" className="button" onClick={() => setConfirmRotate(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="button danger"
              onClick={() => {
                setConfirmRotate(false);
                void general(call("settings.rotateSocketToken", {}), "The socket token was rotated.");
              }}
            >
              Rotate
            </button>
          </div>
        ) : (
          <button type="button" className="button" onClick={() => setConfirmRotate(true)}>
            Rotate socket token…
          </button>
        )}
      </Section>
      {generalNote ? (
        <Message tone={generalNote.tone} live>
          {generalNote.text}
        </Message>
      ) : null}
    </div>
  );
}
