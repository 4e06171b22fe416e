import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  effectiveCap,
  MAX_OUTPUT_CAP,
  OutputCapture,
  OutputTail,
  TRUNCATION_MARKER,
  trimIncompleteUtf8Tail,
} from "../../../src/executor/output-capture.js";

describe("output capture", () => {
  it("keeps everything under the cap and says nothing was truncated", () => {
    const capture = new OutputCapture("combined", 100);
    capture.push("stdout", Buffer.from("hello "));
    capture.push("stderr", Buffer.from("warning"));
    capture.push("stdout", Buffer.from("world"));
    expect(capture.result()).toEqual({
      stdout: "hello world",
      stderr: "warning",
      truncated: false,
      stdoutTruncated: false,
      stderrTruncated: false,
      stdoutBytes: 11,
      stderrBytes: 7,
    });
  });

  it("shares one cap between stdout and stderr in combined mode and marks the cut stream", () => {
    const capture = new OutputCapture("combined", 10);
    capture.push("stdout", Buffer.from("123456"));
    capture.push("stderr", Buffer.from("abcdefgh"));
    capture.push("stdout", Buffer.from("789"));
    const result = capture.result();
    expect(result.stdout).toBe(`123456${TRUNCATION_MARKER}`); // "789" came after the cap
    expect(result.stderr).toBe(`abcd${TRUNCATION_MARKER}`);
    expect(result.truncated).toBe(true);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdoutBytes).toBe(9);
    expect(result.stderrBytes).toBe(8);
  });

  it("caps each stream on its own in separate mode, without a marker", () => {
    const capture = new OutputCapture("separate", 4);
    capture.push("stdout", Buffer.from("abcdef"));
    capture.push("stderr", Buffer.from("xy"));
    const result = capture.result();
    expect(result).toMatchObject({
      stdout: "abcd",
      stderr: "xy",
      stdoutTruncated: true,
      stderrTruncated: false,
    });
  });

  it("never cuts a UTF-8 character in half", () => {
    const capture = new OutputCapture("separate", 5);
    capture.push("stdout", Buffer.from("aé€😀")); // 1 + 2 + 3 + 4 bytes
    expect(capture.result().stdout).toBe("aé");
  });

  it("keeps a prefix of valid text for any input and cap (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(60), fc.nat(7), (text, cap, split) => {
        const bytes = Buffer.from(text);
        const capture = new OutputCapture("separate", cap);
        capture.push("stdout", bytes.subarray(0, split));
        capture.push("stdout", bytes.subarray(split));
        const kept = capture.result().stdout;
        expect(text.startsWith(kept)).toBe(true);
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(cap);
        expect(Buffer.byteLength(kept)).toBeGreaterThan(Math.min(cap, bytes.length) - 4);
      }),
    );
  });

  it("drops only an incomplete trailing sequence", () => {
    expect(trimIncompleteUtf8Tail(Buffer.from([0x61, 0xe2, 0x82])).toString()).toBe("a");
    expect(trimIncompleteUtf8Tail(Buffer.from("a€")).toString()).toBe("a€");
  });

  it("clamps a requested cap to 5 MiB and uses the mode's default when none is asked for", () => {
    expect(effectiveCap("combined")).toBe(200_000);
    expect(effectiveCap("separate")).toBe(1024 * 1024);
    expect(effectiveCap("combined", 50 * 1024 * 1024)).toBe(MAX_OUTPUT_CAP);
    expect(effectiveCap("separate", 10)).toBe(10);
  });

  it("stays bounded and keeps only the cap when fed far more than it", () => {
    const capture = new OutputCapture("combined", 1000);
    const chunk = Buffer.alloc(65_536, 0x61);
    for (let i = 0; i < 200; i++) capture.push("stdout", chunk);
    const result = capture.result();
    expect(result.stdout.length).toBe(1000 + TRUNCATION_MARKER.length);
    expect(result.stdoutBytes).toBe(200 * 65_536);
  });
});

describe("output tail", () => {
  it("holds the last characters in arrival order", () => {
    const tail = new OutputTail(5);
    tail.push(Buffer.from("hello "));
    tail.push(Buffer.from("wor"));
    tail.push(Buffer.from("ld"));
    expect(tail.text()).toBe("world");
  });

  it("starts on a whole character after dropping older bytes", () => {
    const tail = new OutputTail(2);
    for (let i = 0; i < 10; i++) tail.push(Buffer.from("€€€"));
    expect(tail.text()).toBe("€€");
  });

  it("holds exactly the end of the output whatever the chunk sizes, wrapping around", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 300 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 60 }),
        (chunks, maxChars) => {
          const ascii = chunks.map((c) => Buffer.from(c.map((b) => 0x20 + (b % 0x5f))));
          const tail = new OutputTail(maxChars);
          for (const chunk of ascii) tail.push(chunk);
          expect(tail.text()).toBe(Buffer.concat(ascii).toString("latin1").slice(-maxChars));
        },
      ),
    );
  });

  it("keeps its own copy: a chunk buffer reused for the next read does not change what it holds", () => {
    const tail = new OutputTail(8);
    const reused = Buffer.from("abcdefgh");
    tail.push(reused.subarray(0, 4));
    reused.write("WXYZ", 0);
    tail.push(reused.subarray(4, 8));
    reused.fill("!");
    expect(tail.text()).toBe("abcdefgh");
  });
});
