import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningConsole, startConsole } from "./startConsole.js";

/** A raw HTTP request (fetch may not set Host), answering status, headers and body. */
function get(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => {
        body += d.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A POST with a JSON content type, answering status and body. */
function post(url: string, path: string, body: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, path, method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => {
          text += d.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("startConsole", () => {
  let running: RunningConsole;
  const web = mkdtempSync(join(tmpdir(), "meshflow-console-web-"));

  beforeAll(async () => {
    mkdirSync(join(web, "assets"));
    writeFileSync(join(web, "index.html"), "<!doctype html><title>console</title>");
    writeFileSync(join(web, "assets", "app.js"), "export {};");
    running = await startConsole({
      storeRoot: mkdtempSync(join(tmpdir(), "meshflow-console-store-")),
      port: 0,
      webRoot: web,
    });
  });

  afterAll(async () => {
    await running.close();
  });

  it("refuses a foreign Host or Origin (DNS rebinding)", async () => {
    expect((await get(running.url, "/api/runs", { host: "evil.example" })).status).toBe(403);
    expect((await get(running.url, "/api/runs", { origin: "http://evil.example" })).status).toBe(403);
    expect((await get(running.url, "/api/runs", { host: `localhost:${running.port}` })).status).toBe(200);
  });

  it("refuses Origin: null (a sandboxed frame or a file: page), as flow serve does", async () => {
    // The console once skipped the Origin check for "null", so any sandboxed page could read it.
    const refused = await get(running.url, "/api/runs", { origin: "null" });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toBe('Origin "null" is not allowed');
  });

  it("names the methods a path takes, and an unknown API path", async () => {
    const wrong = await get(running.url, "/api/guard/stop");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("POST");
    const unknown = await get(running.url, "/api/nothing");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.message).toContain("/api/nothing");
  });

  it("serves the built page and its assets, never a file outside it", async () => {
    const asset = await get(running.url, "/assets/app.js");
    expect(asset.headers["content-type"]).toContain("javascript");
    expect(asset.headers["cache-control"]).toContain("immutable");
    for (const path of ["/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%E0%A4%A", "/runs/x"]) {
      const page = await get(running.url, path);
      expect(page.status).toBe(200);
      expect(page.body).toBe("<!doctype html><title>console</title>");
    }
  });

  it("answers a POST body over its limit, or not JSON, with a usage error naming why", async () => {
    const big = await post(running.url, "/api/guard/stop", JSON.stringify({ reason: "x".repeat(70_000) }));
    expect(big.status).toBe(400);
    expect(JSON.parse(big.body).error.message).toContain("request body over 65536 bytes");
    const broken = await post(running.url, "/api/guard/stop", "{nope");
    expect(JSON.parse(broken.body).error.code).toBe("json_invalid");
  });

  it("answers an unknown run with run_not_found (404)", async () => {
    const missing = await get(running.url, "/api/runs/nope");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe("run_not_found");
  });
});

describe("startConsole with a token", () => {
  const token = "console-token-0123456789";
  let running: RunningConsole;

  beforeAll(async () => {
    running = await startConsole({ storeRoot: mkdtempSync(join(tmpdir(), "meshflow-console-token-")), port: 0, token });
  });

  afterAll(async () => {
    await running.close();
  });

  it("takes the token as a bearer header or from /?token= (then a cookie), and refuses any other", async () => {
    expect((await get(running.url, "/api/runs", { authorization: `Bearer ${token}` })).status).toBe(200);
    for (const wrong of ["", "x", token.slice(1), `${token}0`])
      expect((await get(running.url, "/api/runs", { authorization: `Bearer ${wrong}` })).status).toBe(401);
    const opened = await get(running.url, `/?token=${token}`);
    expect(opened.status).toBe(303);
    const cookie = String(opened.headers["set-cookie"]).split(";")[0] ?? "";
    expect((await get(running.url, "/api/runs", { cookie })).status).toBe(200);
    expect((await get(running.url, "/?token=nope")).status).toBe(401);
  });
});

describe("startConsole's prdSearch", () => {
  it("refuses a bound that is not a whole number in range, naming it", async () => {
    const storeRoot = mkdtempSync(join(tmpdir(), "meshflow-console-bounds-"));
    for (const [prdSearch, message] of [
      [{ depth: -1 }, "prdSearch.depth must be a whole number of 0 or more, not -1"],
      [{ maxPrds: 0 }, "prdSearch.maxPrds must be a whole number of 1 or more, not 0"],
      [{ maxBytes: 1.5 }, "prdSearch.maxBytes must be a whole number of 1 or more, not 1.5"],
    ] as const)
      await expect(startConsole({ storeRoot, port: 0, prdSearch })).rejects.toThrow(message);
  });
});
