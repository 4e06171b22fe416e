// The tray app's log: one line per entry appended to E/logs/gatehouse.log (0600 in a 0700 folder),
// kept to two generations of 5 MiB. Lines arrive already redacted by the logger.
import fs from "node:fs";
import path from "node:path";

export const LOG_FILE_NAME = "gatehouse.log";
const MAX_BYTES = 5 * 1024 * 1024;

export function fileLogSink(logsDir: string, maxBytes = MAX_BYTES): (line: string) => void {
  const file = path.join(logsDir, LOG_FILE_NAME);
  let size = -1;
  return (line) => {
    try {
      if (size < 0) {
        fs.mkdirSync(logsDir, { recursive: true, mode: 0o700 });
        size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
      }
      const text = `${line}\n`;
      if (size > 0 && size + text.length > maxBytes) {
        fs.renameSync(file, `${file}.1`);
        size = 0;
      }
      fs.appendFileSync(file, text, { mode: 0o600 });
      size += Buffer.byteLength(text);
    } catch {
      // A log that cannot be written must not take the app down; stderr still has the line.
    }
    process.stderr.write(`${line}\n`);
  };
}
