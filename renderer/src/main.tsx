// Entry point: the approval window is `index.html#approval`; anything else is the main window.
import { createRoot } from "react-dom/client";
import { ApprovalWindow, MainWindow } from "./app.js";
import { call } from "./bridge.js";
import "./styles.css";

const root = document.getElementById("root");
const isApprovalWindow = window.location.hash === "#approval";
if (root) createRoot(root).render(isApprovalWindow ? <ApprovalWindow /> : <MainWindow />);

// Button order follows the platform main runs on (styles.css: the affirmative button is on the right on
// macOS, on the left elsewhere); until it answers, the macOS order (the DOM order) is shown.
call("app.platform", {}).then(
  ({ platform }) => (document.documentElement.dataset.platform = platform),
  () => undefined,
);
