// Finds the agent CLI to start: the path from the settings (`agents.claudePath` / `agents.codexPath`,
// `~` expanded), else the command name looked up on the PATH the agent gets. A missing binary is a
// value with a message for the task's error event, never a crash.
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { expandHome, type Env } from "../../core/paths.js";
import type { RuntimeKind } from "../../core/runtime/index.js";

export type AgentBinary = { ok: true; file: string } | { ok: false; message: string };

export const RUNTIME_LABEL: Record<RuntimeKind, string> = { "claude-code": "Claude Code", codex: "Codex" };
const SETTING: Record<RuntimeKind, string> = {
  "claude-code": "agents.claudePath",
  codex: "agents.codexPath",
};

function envValue(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== "win32") return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

async function isExecutableFile(file: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    if (platform !== "win32") await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function resolveAgentBinary(options: {
  runtime: RuntimeKind;
  /** The spec's command: the configured path, or the bare name (`claude`, `codex`). */
  command: string;
  env: Env;
  home: string;
  settingsFile: string;
  platform?: NodeJS.Platform;
}): Promise<AgentBinary> {
  const platform = options.platform ?? process.platform;
  const label = RUNTIME_LABEL[options.runtime];
  const command = expandHome(options.command.trim(), options.home);
  const p = platform === "win32" ? path.win32 : path.posix;
  if (command.includes("/") || (platform === "win32" && command.includes("\\"))) {
    const file = p.resolve(command);
    if (await isExecutableFile(file, platform)) return { ok: true, file };
    return {
      ok: false,
      message: `${label} was not found at ${file} (${SETTING[options.runtime]} in ${options.settingsFile}). Install it there or correct the setting.`,
    };
  }
  const dirs = (envValue(options.env, "PATH", platform) ?? "").split(p.delimiter).filter((d) => d !== "");
  const exts =
    platform === "win32"
      ? ["", ...(envValue(options.env, "PATHEXT", platform) ?? ".COM;.EXE;.BAT;.CMD").split(";")]
      : [""];
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = p.join(dir, command + ext);
      if (await isExecutableFile(file, platform)) return { ok: true, file };
    }
  }
  return {
    ok: false,
    message: `${label} is not installed on this device: "${command}" was not found on PATH. Install it, or set its path as ${SETTING[options.runtime]} in ${options.settingsFile}.`,
  };
}
