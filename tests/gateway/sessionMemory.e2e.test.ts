import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataOf, startHttpFlow } from "../helpers/flowServe.js";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";

const TOKEN = "test-serve-token-5a4b3c2d1e0f";
const ATTEMPTS = 10_000;
const CAP = 100;
const PARALLEL = 8;
const WARMUP = 500;

/** Resident memory of a process in MB, from /proc/<pid>/status. */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

/** One client that says hello and never comes back: an initialize request, its answer read in full. */
async function initializeOnce(url: string, n: number): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: `one-shot-${n}`, version: "1" } },
    }),
  });
  await res.text();
  return res.status;
}

describe("flow serve --http under many one-shot clients", () => {
  // Regression: every HTTP session (a server, its tool list and buffers, ~156 KB) was kept until a
  // 30-minute idle timeout, so enough one-shot clients exhausted the heap of `flow serve`.
  it(`keeps at most --max-sessions sessions and bounded memory over ${ATTEMPTS} session attempts`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-sessions-"));
    writeMcpConfig(dir, { memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "m.jsonl") }) });
    const flow = await startHttpFlow(["--max-sessions", String(CAP)], {
      cwd: dir,
      env: { FLOW_SERVE_TOKEN: TOKEN },
    });
    try {
      const pid = flow.child.pid;
      if (!pid) throw new Error("flow serve has no pid");
      const statuses = new Map<number, number>();
      let next = 0;
      const attempts = async (until: number) =>
        Promise.all(
          Array.from({ length: PARALLEL }, async () => {
            while (next < until) {
              const status = await initializeOnce(flow.url, next++);
              statuses.set(status, (statuses.get(status) ?? 0) + 1);
            }
          }),
        );
      const started = rssMb(pid);
      // The first few hundred sessions grow the heap to its working size (garbage included); a leak shows
      // as growth after that: 10,000 kept sessions would be about 1.5 GB.
      await attempts(WARMUP);
      const before = rssMb(pid);
      await attempts(WARMUP + ATTEMPTS);
      const after = rssMb(pid);
      process.stdout.write(
        `flow serve RSS: ${started.toFixed(1)} MB at start, ${before.toFixed(1)} MB after ${WARMUP} session attempts, ${after.toFixed(1)} MB after ${ATTEMPTS} more\n`,
      );
      expect(Object.fromEntries(statuses)).toEqual({ 200: WARMUP + ATTEMPTS });
      expect(after - before).toBeLessThan(150);

      const client = await flow.connect("checker", TOKEN);
      const report = dataOf(await client.call("flow_diagnose"));
      const gateway = report.gateway as { sessions: { open: number; peak: number; max: number } };
      expect(gateway.sessions.max).toBe(CAP);
      expect(gateway.sessions.peak).toBeLessThanOrEqual(CAP);
      expect(gateway.sessions.open).toBeLessThanOrEqual(CAP);
      // Evicted sessions were closed, not only forgotten by the HTTP layer: the gateway's own list agrees.
      expect((report.sessions as unknown[]).length).toBeLessThanOrEqual(CAP);
      expect(flow.stderr()).not.toContain("Error");
    } finally {
      expect(await flow.stop()).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
