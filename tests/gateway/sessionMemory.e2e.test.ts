import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataOf, startHttpFlow } from "../helpers/flowServe.js";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";

const TOKEN = "test-serve-token-5a4b3c2d1e0f";
const CAP = 5;
/** Enough one-shot clients to fill the cap several times over; the memory figure over 10,000 is `npm run bench -- sessions`. */
const ATTEMPTS = 60;
const PARALLEL = 4;

const headers = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** One client that says hello and never comes back: an initialize request, its answer read in full. */
async function initializeOnce(url: string, n: number): Promise<{ status: number; session: string | null }> {
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `one-shot-${n}`, version: "1" } },
    }),
  });
  await res.text();
  return { status: res.status, session: res.headers.get("mcp-session-id") };
}

describe("flow serve --http under many one-shot clients", () => {
  // Regression: every HTTP session (a server, its tool list and buffers, ~156 KB) was kept until a
  // 30-minute idle timeout, so enough one-shot clients exhausted the heap of `flow serve`. The bound is
  // checked here on the session count (kept ones and the gateway's own list); the memory it saves over
  // 10,000 attempts depends on the machine's load and is measured by `npm run bench -- sessions`.
  it(`keeps at most --max-sessions sessions and closes the ones it evicts over ${ATTEMPTS} session attempts`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-sessions-"));
    writeMcpConfig(dir, { memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "m.jsonl") }) });
    const flow = await startHttpFlow(["--max-sessions", String(CAP)], {
      cwd: dir,
      env: { FLOW_SERVE_TOKEN: TOKEN },
    });
    try {
      const first = await initializeOnce(flow.url, 0);
      expect(first.status).toBe(200);
      expect(first.session).toBeTruthy();
      const statuses = new Map<number, number>();
      let next = 1;
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < ATTEMPTS) {
            const { status } = await initializeOnce(flow.url, next++);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      expect(Object.fromEntries(statuses)).toEqual({ 200: ATTEMPTS - 1 });

      // The oldest idle session made room for later ones: it is gone, not only hidden.
      const stale = await fetch(flow.url, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": first.session ?? "", "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
      });
      expect(stale.status).toBe(404);
      expect(await stale.text()).toContain("unknown or closed session");

      const client = await flow.connect("checker", TOKEN);
      const report = dataOf(await client.call("flow_diagnose"));
      const gateway = report.gateway as { sessions: { open: number; peak: number; max: number } };
      expect(gateway.sessions.max).toBe(CAP);
      expect(gateway.sessions.peak).toBe(CAP);
      expect(gateway.sessions.open).toBeLessThanOrEqual(CAP);
      // Evicted sessions were closed, not only forgotten by the HTTP layer: the gateway's own list agrees.
      expect((report.sessions as unknown[]).length).toBeLessThanOrEqual(CAP);
      expect(flow.stderr()).not.toContain("Error");
    } finally {
      expect(await flow.stop()).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
