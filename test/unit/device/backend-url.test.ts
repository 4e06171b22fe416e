import { describe, expect, it } from "vitest";
import { normaliseBaseUrl, socketTarget } from "../../../src/device/backend-url.js";

describe("backend URL rules", () => {
  it("trims, drops trailing slashes and maps ws/wss to http/https", () => {
    expect(normaliseBaseUrl("  https://wegent.example.com/  ")).toBe("https://wegent.example.com");
    expect(normaliseBaseUrl("ws://host:8000")).toBe("http://host:8000");
    expect(normaliseBaseUrl("WSS://host/prefix/socket.io/")).toBe("https://host/prefix/socket.io");
  });

  it("a base without a path dials /local-executor with the default Engine.IO path", () => {
    const result = socketTarget({ socketUrl: null, backendUrl: "https://wegent.example.com/" });
    expect(result).toMatchObject({
      ok: true,
      target: { namespaceUrl: "https://wegent.example.com/local-executor", path: "/socket.io", port: 443 },
    });
  });

  it("a socket URL with a path uses that path as the Engine.IO path, unchanged", () => {
    const result = socketTarget({
      socketUrl: "wss://host/prefix/socket.io",
      backendUrl: "https://ignored.example.com",
    });
    expect(result).toMatchObject({
      ok: true,
      target: { namespaceUrl: "https://host/local-executor", path: "/prefix/socket.io", host: "host" },
    });
  });

  it("the socket URL wins over the backend URL only when it is non-empty", () => {
    const result = socketTarget({ socketUrl: "  ", backendUrl: "http://127.0.0.1:9000" });
    expect(result).toMatchObject({
      ok: true,
      target: { namespaceUrl: "http://127.0.0.1:9000/local-executor", port: 9000 },
    });
  });

  it("no URL at all is 'Backend URL is not configured' and a bad one is named", () => {
    expect(socketTarget({ socketUrl: null, backendUrl: null })).toEqual({
      ok: false,
      error: "Backend URL is not configured",
    });
    expect(socketTarget({ socketUrl: null, backendUrl: "ftp://x" })).toMatchObject({ ok: false });
    expect(socketTarget({ socketUrl: null, backendUrl: "not a url" })).toMatchObject({ ok: false });
  });
});
