import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedHostnames, checkFront } from "./httpFront.js";
import { readJsonRequest } from "./readRequestBody.js";

/** A raw HTTP request (fetch may not set Host or Origin), answering status and body. */
function send(port: number, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ hostname: "127.0.0.1", port, path: "/", method: body ? "POST" : "GET", headers }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => {
        text += d.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("checkFront", () => {
  const token = "a-token-of-some-length";
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const front = { allowedHostnames: allowedHostnames("127.0.0.1", ["Meshflow.Example"]), token };
    server = createServer((req, res) => {
      void (async () => {
        const refusal = checkFront(req, front);
        if (refusal) return void res.writeHead(refusal.status).end(refusal.reason);
        if (req.method !== "POST") return void res.writeHead(200).end("ok");
        const read = await readJsonRequest(req, { maxBytes: 64, requireJsonType: true, emptyBody: {} });
        if (!read.ok) return void res.writeHead(read.status).end(read.reason);
        res.writeHead(200).end(JSON.stringify(read.body));
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const auth = { authorization: `Bearer ${token}` };

  it("refuses a foreign Host, a foreign Origin and Origin: null with 403, before the token", async () => {
    expect((await send(port, { host: "evil.example" })).status).toBe(403);
    expect((await send(port, { ...auth, origin: "http://evil.example" })).status).toBe(403);
    const nullOrigin = await send(port, { ...auth, origin: "null" });
    expect(nullOrigin).toEqual({ status: 403, body: 'Origin "null" is not allowed' });
  });

  it("accepts the loopback names, the bound host and an allowed host in any case", async () => {
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`, "meshflow.example"])
      expect((await send(port, { ...auth, host })).status).toBe(200);
    expect((await send(port, { ...auth, origin: "http://MESHFLOW.example:8080" })).status).toBe(200);
  });

  it("refuses a missing, shorter, longer or wrong token with 401", async () => {
    for (const presented of [undefined, token.slice(0, 5), `${token}x`, token.replace("a", "b")]) {
      const headers: Record<string, string> = presented === undefined ? {} : { authorization: `Bearer ${presented}` };
      expect((await send(port, headers)).status).toBe(401);
    }
  });

  it("reads a JSON body within the limit, and refuses a large, non-JSON or untyped one", async () => {
    const json = { ...auth, "content-type": "application/json" };
    expect(await send(port, json, '{"a":1}')).toEqual({ status: 200, body: '{"a":1}' });
    expect(await send(port, json, "   ")).toEqual({ status: 200, body: "{}" });
    expect(await send(port, json, JSON.stringify({ a: "x".repeat(100) }))).toEqual({ status: 413, body: "too_large" });
    expect(await send(port, json, "{nope")).toEqual({ status: 400, body: "not_json" });
    expect(await send(port, { ...auth, "content-type": "text/plain" }, "{}")).toEqual({
      status: 415,
      body: "wrong_type",
    });
  });
});

describe("allowedHostnames", () => {
  it("names the bound host, bracketed when IPv6, but never a wildcard", () => {
    expect([...allowedHostnames("0.0.0.0")]).toEqual(["localhost", "127.0.0.1", "[::1]"]);
    expect(allowedHostnames("::").has("[::]")).toBe(false);
    expect(allowedHostnames("FE80::1").has("[fe80::1]")).toBe(true);
    expect(allowedHostnames("[fe80::1]").has("[fe80::1]")).toBe(true);
    expect(allowedHostnames("10.0.0.5").has("10.0.0.5")).toBe(true);
  });
});
