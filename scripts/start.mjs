// `npm start` (after `npm run build`): launch the tray app with Electron; where no Electron binary can
// be obtained or there is no display, say so in one line and run the headless runner instead
// (`gatehouse serve`), so the main job — being the executor device — still runs.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const electronDir = path.join(root, "node_modules", "electron");

function hasDisplay() {
  if (process.platform !== "linux") return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** The Electron binary, downloading it once if needed; null when it cannot be had. */
function electronBinary() {
  const pathFile = path.join(electronDir, "path.txt");
  if (existsSync(pathFile)) {
    const binary = path.join(electronDir, "dist", readFileSync(pathFile, "utf8").trim());
    if (existsSync(binary)) return binary;
  }
  if (!existsSync(path.join(electronDir, "install.js"))) return null;
  const attempt = spawnSync(process.execPath, ["-e", "process.stdout.write(require('electron'))"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const binary = attempt.status === 0 ? attempt.stdout.trim() : "";
  return binary && existsSync(binary) ? binary : null;
}

function run(command, args) {
  const child = spawn(command, args, { cwd: root, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const forceHeadless = process.env.GATEHOUSE_HEADLESS === "1";
const display = hasDisplay();
const binary = forceHeadless || !display ? null : electronBinary();
if (binary) {
  run(binary, [root]);
} else {
  const why = forceHeadless
    ? "GATEHOUSE_HEADLESS=1 is set"
    : !display
      ? "there is no display (DISPLAY/WAYLAND_DISPLAY unset)"
      : "the Electron binary could not be downloaded";
  process.stderr.write(
    `gatehouse: not starting the tray app because ${why}; starting the headless runner (gatehouse serve) instead.\n`,
  );
  run(process.execPath, [path.join(root, "bin", "gatehouse.js"), "serve", ...process.argv.slice(2)]);
}
