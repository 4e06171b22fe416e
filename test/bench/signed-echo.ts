// The approval.rtt baseline (bench.md): a server that does what the approval socket must do for any
// frame and nothing else — split lines, parse the frame, check its mac with the token, sign a reply
// (a fixed `decision` answering the request's nonce) — so that the same client code (signing
// requests, verifying replies) measures the transport and the crypto, and the ratio the server's own
// work. Run as `node dist/test/bench/signed-echo.js SOCKET TOKEN`; prints "ready".
import fs from "node:fs";
import net from "node:net";
import { macMatches, NonceSource, signFrame } from "../../src/approval-server/frame-auth.js";
import { LineReader } from "../../src/approval-server/framing.js";

const [socketPath, token] = process.argv.slice(2);
if (!socketPath || !token) throw new Error("usage: signed-echo SOCKET TOKEN");
const nonces = new NonceSource();

const server = net.createServer((socket) => {
  const reader = new LineReader();
  socket.on("data", (chunk: Buffer) => {
    for (const event of reader.push(chunk)) {
      if (event.kind !== "line") continue;
      const frame = JSON.parse(event.line) as {
        type: string;
        id: string;
        nonce: string;
        ts: number;
        body: string;
        mac: string;
      };
      if (!macMatches(token, { direction: "request", ...frame }, frame.mac)) {
        socket.destroy();
        return;
      }
      const body = JSON.stringify({
        decision: "allow-once",
        decidedBy: "policy",
        reason: "echo",
        re: frame.nonce,
      });
      const reply = signFrame(token, "reply", "decision", frame.id, body, Date.now(), nonces.next());
      socket.write(`${JSON.stringify(reply)}\n`);
    }
  });
  socket.on("error", () => undefined);
});
server.listen(socketPath, () => {
  fs.chmodSync(socketPath, 0o600);
  process.stdout.write("ready\n");
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
