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

  it("answers an unknown run with run_not_found (404)", async () => {
    const missing = await get(running.url, "/api/runs/nope");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe("run_not_found");
  });
});
