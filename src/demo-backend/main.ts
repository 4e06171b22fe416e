// `npm run backend:dev`: the test backend on fixed ports for trying Gatehouse by hand.
// WEGENT_TEST_TOKEN (default `test-token`), GATEHOUSE_TEST_BACKEND_PORT (default 8765).
import { TestBackend } from "./server.js";

const token = process.env.WEGENT_TEST_TOKEN?.trim() || "test-token";
const port = Number(process.env.GATEHOUSE_TEST_BACKEND_PORT?.trim() || 8765);
const backend = new TestBackend({
  token,
  port,
  log: (line) => process.stdout.write(`[backend] ${line}\n`),
});
await backend.start();
const lines = [
  "Gatehouse test backend",
  `  backend URL     ${backend.url}  (Socket.IO namespace /local-executor, REST /api/local-executor/…)`,
  `  package origin  ${backend.packages?.backendUrl ?? "-"}  (proxied through the backend URL)`,
  `  presigned       ${backend.packages?.presignedOrigin ?? "-"}`,
  `  token           ${token}  (WEGENT_TEST_TOKEN)`,
  "",
  "Point a device at it:",
  `  WEGENT_BACKEND_URL=${backend.url} WEGENT_AUTH_TOKEN=${token} gatehouse serve`,
  "Then sync a skill (see src/demo-backend/README.md):",
  `  BACKEND=${backend.url} TOKEN=${token} DEVICE_ID=<the device id> curl -s -X POST "$BACKEND/api/local-executor/devices/$DEVICE_ID/capabilities/sync" …`,
  "",
];
process.stdout.write(`${lines.join("\n")}\n`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void backend.close().then(() => process.exit(0));
  });
}
