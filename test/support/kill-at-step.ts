// Preload for a child process of the crash tests (`node --import dist/test/support/kill-at-step.js`):
// counts the process's file-system changes under GATEHOUSE_STEP_ROOT (fs-steps.ts), appends each to
// GATEHOUSE_STEP_LOG, and SIGKILLs the process just before change number GATEHOUSE_KILL_AT_STEP (or,
// with GATEHOUSE_STEP_FAULT=enospc, makes the disk full from that change on: fs-steps.ts "enospc").
import { installFsSteps, setProcessGate, StepGate } from "./fs-steps.js";

const root = process.env.GATEHOUSE_STEP_ROOT;
if (!root) throw new Error("kill-at-step: GATEHOUSE_STEP_ROOT is not set");
const stopAt = process.env.GATEHOUSE_KILL_AT_STEP ? Number(process.env.GATEHOUSE_KILL_AT_STEP) : null;
installFsSteps();
const onStop = process.env.GATEHOUSE_STEP_FAULT === "enospc" ? "enospc" : "kill";
setProcessGate(new StepGate({ root, stopAt, onStop, logFile: process.env.GATEHOUSE_STEP_LOG }));
