import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/core/log.js";
import { createRedactor } from "../../../src/core/redact.js";

describe("the redactor", () => {
  it("replaces a registered secret as is, JSON-escaped and URL-encoded, and masks bearer tokens", () => {
    const r = createRedactor();
    const secret = 'tok"en\nwith\\control\u0001chars';
    r.add(secret);
    expect(r.text(`raw ${secret} end`)).toBe("raw [redacted] end");
    expect(r.text(`json ${JSON.stringify({ a: secret })}`)).toBe('json {"a":"[redacted]"}');
    expect(r.text(`url ?t=${encodeURIComponent(secret)}`)).toBe("url ?t=[redacted]");
    expect(r.text("Authorization: Bearer abc.def-123")).toBe("Authorization: Bearer [redacted]");
    r.add("abc"); // too short to be taken as a secret: ordinary words would vanish
    expect(r.text("abc")).toBe("abc");
  });

  it("forgets a withdrawn secret, keeps one still registered elsewhere, and keeps another secret's forms", () => {
    const r = createRedactor();
    r.add("task-key-one");
    expect(r.text("task-key-one")).toBe("[redacted]");
    r.forget("task-key-one");
    expect(r.text("task-key-one")).toBe("task-key-one");
    expect(r.size).toBe(0);

    r.add("shared-token");
    r.add("shared-token"); // registered by two owners
    r.forget("shared-token");
    expect(r.text("shared-token")).toBe("[redacted]");
    r.forget("shared-token");
    expect(r.text("shared-token")).toBe("shared-token");

    // one secret's JSON spelling is another secret as it is
    const quoted = 'a"quoted';
    const escaped = 'a\\"quoted';
    r.add(quoted);
    r.add(escaped);
    r.forget(quoted);
    expect(r.text(`x ${escaped} y`)).toBe("x [redacted] y");
    expect(r.text(`x ${quoted} y`)).toBe(`x ${quoted} y`);
    r.forget("never-registered");
    expect(r.size).toBe(1);
  });

  it("copies a value with every string redacted, keys included, and leaves the original alone", () => {
    const r = createRedactor();
    r.add("s3cret-value");
    const original = {
      error: "refused s3cret-value",
      nested: [{ ["key-s3cret-value"]: 1, ok: true, none: null }],
      when: new Date(0),
      skipped: undefined,
    };
    expect(r.value(original)).toEqual({
      error: "refused [redacted]",
      nested: [{ "key-[redacted]": 1, ok: true, none: null }],
      when: "1970-01-01T00:00:00.000Z",
    });
    expect(original.error).toBe("refused s3cret-value");
  });

  it("keeps a __proto__ key a plain key, and survives deep nesting and cycles without recursing", () => {
    const r = createRedactor();
    const withProto = JSON.parse('{"__proto__":{"polluted":"yes"}}') as object;
    const copy = r.value(withProto) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    let deep: unknown = "bottom";
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(() => r.value(deep)).not.toThrow();

    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(r.value(cyclic)).toEqual({ name: "loop", self: "[circular]" });
  });

  it("is the logger's: a secret registered for the logs is redacted from values too, in every child", () => {
    const lines: string[] = [];
    const logger = createLogger({ sink: (line) => lines.push(line) });
    const child = logger.child("x");
    child.addSecret("device-token-123");
    logger.info("token device-token-123");
    expect(lines[0]).toContain("token [redacted]");
    expect(logger.redact({ lastError: "echo device-token-123" })).toEqual({ lastError: "echo [redacted]" });
    expect(child.redactor).toBe(logger.redactor);
    expect(logger.containsSecret("X=device-token-123")).toBe(true);
    expect(logger.containsSecret("X=other")).toBe(false);
  });
});
