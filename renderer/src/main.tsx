// Entry point: the approval window is `index.html#approval`; anything else is the main window.
import { createRoot } from "react-dom/client";
import { ApprovalWindow, MainWindow } from "./app.js";
import "./styles.css";

const root = document.getElementById("root");
const isApprovalWindow = window.location.hash === "#approval";
if (root) createRoot(root).render(isApprovalWindow ? <ApprovalWindow /> : <MainWindow />);
