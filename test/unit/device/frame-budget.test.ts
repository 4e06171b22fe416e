// The frame budget (issue 18): a backend frame is measured in one pass over its text, before any
// parse or walk; brackets inside strings do not count; the header is read as socket.io-parser reads it.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_FRAME_BUDGET,
  frameHeader,
  jsonTextProblem,
  shortText,
} from "../../../src/device/frame-budget.js";

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

describe("the frame budget", () => {
  it("a 50 000-deep array is refused without being parsed", () => {
    expect(jsonTextProblem(`{"error":${deep(50_000)}}`)).toBe("nested deeper than 64 levels");
  });

  it("nesting up to the limit is accepted and one more level is not", () => {
    expect(jsonTextProblem(deep(64))).toBeNull();
    expect(jsonTextProblem(deep(65))).toBe("nested deeper than 64 levels");
  });

  it("brackets and escaped quotes inside strings are text, not nesting", () => {
    const text = JSON.stringify({ s: `${"[".repeat(500)}\\"{{{`, t: '"[[[' });
    expect(jsonTextProblem(text)).toBeNull();
  });

  it("too many values and too many characters are refused", () => {
    const budget = { ...DEFAULT_FRAME_BUDGET, maxValues: 100 };
    expect(jsonTextProblem(JSON.stringify(Array.from({ length: 99 }, () => 1)), budget)).toBeNull();
    expect(jsonTextProblem(JSON.stringify(Array.from({ length: 101 }, () => 1)), budget)).toBe(
      "more than 100 values",
    );
    expect(jsonTextProblem("x".repeat(11), { ...DEFAULT_FRAME_BUDGET, maxChars: 10 })).toBe(
      "larger than 10 characters",
    );
  });

  it("reads type, namespace and ack id the way socket.io-parser does", () => {
    const event = '2/local-executor,17["device:heartbeat",{}]';
    expect(frameHeader(event)).toEqual({
      type: 2,
      nsp: "/local-executor",
      id: 17,
      json: event.indexOf("["),
    });
    expect(frameHeader('3/local-executor,5[{"success":true}]')).toMatchObject({ type: 3, id: 5 });
    expect(frameHeader('2["task:execute",{}]')).toEqual({ type: 2, nsp: "/", json: 1 });
    const refusal = '4/local-executor,{"message":"no"}';
    expect(frameHeader(refusal)).toEqual({ type: 4, nsp: "/local-executor", json: refusal.indexOf("{") });
    expect(frameHeader("9nope")).toBeNull();
  });

  it("a long backend text is cut for status lines and logs", () => {
    expect(shortText("short")).toBe("short");
    expect(shortText("x".repeat(600))).toBe(`${"x".repeat(500)}… (600 characters)`);
  });
});
