// Every subcommand, in the order `gatehouse --help` lists them. Each module exports `command`.
import type { CommandSpec } from "../context.js";
import { command as init } from "./init.js";
import { command as policy } from "./policy.js";
import { command as allowlist } from "./allowlist.js";
import { command as exec } from "./exec.js";
import { command as elevate } from "./elevate.js";
import { command as serve } from "./serve.js";
import { command as ask } from "./ask.js";
import { command as hook } from "./hook.js";
import { command as socket } from "./socket.js";
import { command as workdir } from "./workdir.js";
import { command as runtime } from "./runtime.js";
import { command as skills } from "./skills.js";
import { command as caps } from "./caps.js";
import { command as status } from "./status.js";
import { command as login } from "./login.js";
import { command as logout } from "./logout.js";
import { command as demo } from "./demo.js";

export const commands: CommandSpec[] = [
  init,
  policy,
  allowlist,
  exec,
  elevate,
  serve,
  ask,
  hook,
  socket,
  workdir,
  runtime,
  skills,
  caps,
  status,
  login,
  logout,
  demo,
];
