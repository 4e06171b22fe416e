// A raw client for the approval socket: sends exactly the bytes a test wants (forged, replayed,
// oversized frames) and collects what the server writes back, and when it hangs up.
import { spawnSync } from "node:child_process";
import net from "node:net";
import { computeMac, macMatches, newNonce } from "../../../src/approval-server/frame-auth.js";
import { waitFor } from "../../support/wait-for.js";

export interface Frame {
  v?: number;
  type: string;
  id: string | null;
  nonce?: string;
  ts?: number;
  body: string;
  mac?: string;
}

export class RawConnection {
  readonly frames: Frame[] = [];
  closed = false;
  private buffer = "";

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      this.buffer += d;
      let i: number;
      while ((i = this.buffer.indexOf("\n")) !== -1) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        if (line.trim()) this.frames.push(JSON.parse(line) as Frame);
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => (this.closed = true));
  }

  static open(socketPath: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      socket.once("connect", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  send(line: string | object): void {
    this.socket.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
  }

  async nextFrame(index = this.frames.length, what = "a reply"): Promise<Frame> {
    return waitFor(() => this.frames[index], { what });
  }

  async waitClosed(timeoutMs = 10_000): Promise<void> {
    await waitFor(() => this.closed, { what: "the server to close the connection", timeoutMs });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A signed (protocol v2) request frame, with overrides for the fields a test wants to break. */
export function signedFrame(
  token: string,
  type: string,
  body: object | string,
  overrides: { nonce?: string; ts?: number; id?: string; mac?: string } = {},
): Frame & { id: string; nonce: string; ts: number; mac: string } {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const nonce = overrides.nonce ?? newNonce();
  const ts = overrides.ts ?? Date.now();
  const id = overrides.id ?? `t-${nonce.slice(0, 6)}`;
  return {
    v: 2,
    type,
    id,
    nonce,
    ts,
    body: text,
    mac: overrides.mac ?? computeMac(token, { direction: "request", type, id, nonce, ts, body: text }),
  };
}

/** Whether a reply frame's v2 mac checks out with `token`. */
export function replyVerifies(token: string, frame: Frame): boolean {
  return (
    frame.nonce !== undefined &&
    frame.ts !== undefined &&
    frame.mac !== undefined &&
    frame.id !== null &&
    macMatches(
      token,
      {
        direction: "reply",
        type: frame.type,
        id: frame.id,
        nonce: frame.nonce,
        ts: frame.ts,
        body: frame.body,
      },
      frame.mac,
    )
  );
}

export function errorCode(frame: Frame): string {
  return (JSON.parse(frame.body) as { code: string }).code;
}

export function bodyOf<T = Record<string, unknown>>(frame: Frame): T {
  return JSON.parse(frame.body) as T;
}

/** A socket left behind by a process killed while listening: nobody answers on it. */
export function makeDeadSocket(socketPath: string): void {
  const script = `require("net").createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, "SIGKILL"))`;
  spawnSync(process.execPath, ["-e", script]);
}
