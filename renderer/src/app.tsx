// The two kinds of window (ui.md): the approval window (`#approval`) and the main window with its
// sidebar Status · Allowlist · Capabilities · Workdirs · Activity · Settings (`#<screen>`).
import { useEffect, useState } from "react";
import type { Screen } from "../../src/ipc/contract.js";
import { useEvent } from "./bridge.js";
import { ApprovalsFileBanner, useProtection } from "./components/protection.js";
import { ActivityScreen } from "./screens/activity.js";
import { AllowlistScreen } from "./screens/allowlist.js";
import { ApprovalDialog, usePendingPrompts } from "./screens/approval-dialog.js";
import { CapabilitiesScreen } from "./screens/capabilities.js";
import { SettingsScreen } from "./screens/settings.js";
import { StatusScreen } from "./screens/status.js";
import { WorkdirsScreen } from "./screens/workdirs.js";

const SCREENS: Array<{ id: Screen; label: string }> = [
  { id: "status", label: "Status" },
  { id: "allowlist", label: "Allowlist" },
  { id: "capabilities", label: "Capabilities" },
  { id: "workdirs", label: "Workdirs" },
  { id: "activity", label: "Activity" },
  { id: "settings", label: "Settings" },
];

function screenFromHash(): Screen | "approvals" {
  const id = window.location.hash.replace(/^#\/?/, "");
  if (id === "approvals") return "approvals";
  return SCREENS.some((s) => s.id === id) ? (id as Screen) : "status";
}

export function ApprovalWindow() {
  const { prompts, error } = usePendingPrompts();
  useEffect(() => {
    document.title = prompts.length ? `Gatehouse — ${prompts.length} waiting` : "Gatehouse — approvals";
  }, [prompts.length]);
  return (
    <main className="approval-window">
      {error ? <p className="message message-error">{error}</p> : null}
      <ApprovalDialog prompts={prompts} />
    </main>
  );
}

export function MainWindow() {
  const [screen, setScreen] = useState<Screen | "approvals">(screenFromHash);
  const { prompts } = usePendingPrompts();
  const protection = useProtection();
  useEffect(() => {
    const onHash = () => setScreen(screenFromHash());
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  useEvent("app.navigate", (payload) => go(payload.screen));
  const [navOpen, setNavOpen] = useState(false);
  const go = (next: Screen | "approvals") => {
    window.location.hash = `#${next}`;
    setScreen(next);
    setNavOpen(false);
  };
  useEffect(() => {
    const label = screen === "approvals" ? "Approvals" : SCREENS.find((s) => s.id === screen)?.label;
    document.title = `Gatehouse — ${label ?? ""}`;
  }, [screen]);
  return (
    <div className="main-window">
      <nav className={navOpen ? "sidebar open" : "sidebar"} aria-label="Sections">
        <div className="sidebar-head">
          <div className="sidebar-title">Gatehouse</div>
          {/* Small windows only (styles.css): the sections fold away behind this button. */}
          <button
            type="button"
            className="sidebar-toggle button small"
            aria-expanded={navOpen}
            aria-controls="sidebar-sections"
            onClick={() => setNavOpen((open) => !open)}
          >
            {navOpen
              ? "Hide sections"
              : `Sections: ${SCREENS.find((s) => s.id === screen)?.label ?? "Approvals"}`}
          </button>
        </div>
        <ul id="sidebar-sections">
          {SCREENS.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className={screen === s.id ? "nav-item active" : "nav-item"}
                aria-current={screen === s.id ? "page" : undefined}
                onClick={() => go(s.id)}
              >
                {s.label}
              </button>
            </li>
          ))}
        </ul>
        {prompts.length > 0 ? (
          <button
            type="button"
            className={screen === "approvals" ? "nav-item attention active" : "nav-item attention"}
            aria-current={screen === "approvals" ? "page" : undefined}
            onClick={() => go("approvals")}
          >
            {prompts.length} waiting for you
          </button>
        ) : null}
      </nav>
      <main className="content" id="content">
        <ApprovalsFileBanner data={protection.data} onOpen={go} />
        {screen === "approvals" ? <ApprovalDialog prompts={prompts} /> : null}
        {screen === "status" ? (
          <StatusScreen pending={prompts.length} onReview={() => go("approvals")} onOpen={go} />
        ) : null}
        {screen === "allowlist" ? <AllowlistScreen /> : null}
        {screen === "capabilities" ? <CapabilitiesScreen /> : null}
        {screen === "workdirs" ? <WorkdirsScreen /> : null}
        {screen === "activity" ? <ActivityScreen /> : null}
        {screen === "settings" ? <SettingsScreen /> : null}
      </main>
    </div>
  );
}
