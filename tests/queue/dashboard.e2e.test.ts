import { spawn } from "node:child_process";
import { request } from "node:http";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue, queuedStatus } from "../helpers/queuedRuns.js";
import { freePort } from "../helpers/redisServer.js";
import { FLOW_BIN } from "../helpers/runFlow.js";

/** The status of a raw GET / (fetch may not set Host or Origin). */
function rawStatus(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ hostname: "127.0.0.1", port, path: "/", headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("flow dashboard", () => {
  it("serves Bull Board for the runs and calls queues on 127.0.0.1, and stops on SIGINT", async () => {
    const url = inject("redisUrl");
    const prefix = `dash-${process.pid}-${Date.now()}:`;
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [] } }]);
    const [runId] = await enqueue(ws, url, ["prd.json", "--redis-prefix", prefix]);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [FLOW_BIN, "dashboard", "--redis", url, "--redis-prefix", prefix, "--port", String(port)],
      { cwd: ws.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString("utf8");
          if (out.includes("\n")) resolve(out.trim());
        });
        void exit.then((code) => reject(new Error(`flow dashboard exited ${code}`)));
      });
      expect(line).toBe(`dashboard: http://127.0.0.1:${port}/`);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(await page.text()).toContain(`<title>meshflow (${prefix})</title>`);
      const api = (await (await fetch(`http://127.0.0.1:${port}/api/queues`)).json()) as {
        queues: Array<{ name: string; counts: Record<string, number>; jobs: Array<{ id: string }> }>;
      };
      expect(api.queues.map((q) => q.name).sort()).toEqual(["calls", "runs"]);
      expect(api.queues.find((q) => q.name === "runs")?.counts.waiting).toBe(1);
      // Loopback alone does not keep a browser page out: a rebinding name or a sandboxed frame is refused.
      expect(await rawStatus(port, { host: "evil.example" })).toBe(403);
      expect(await rawStatus(port, { origin: "null" })).toBe(403);
      expect(await rawStatus(port, { host: `localhost:${port}` })).toBe(200);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exit).toBe(0);
    expect(runId).toBeDefined();
  }, 30_000);
});

describe("a queued run's outcome", () => {
  let worker: FlowWorker | undefined;
  afterEach(async () => {
    await worker?.stop("SIGTERM");
    worker = undefined;
  });

  it("a run whose story failed is failed for Bull Board, flow status --redis and flow enqueue --wait alike", async () => {
    const url = inject("redisUrl");
    const prefix = `outcome-${process.pid}-${Date.now()}:`;
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__append_line", args: { file: "a", line: "1" } }] },
      },
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__always_fail", args: { reason: "poison" } }] },
      },
    ]);
    worker = await startFlowWorker(ws, url, ["--redis-prefix", prefix]);
    const waited = await ws.flow(["enqueue", "prd.json", "--wait", "--json", "--redis", url, "--redis-prefix", prefix]);
    expect(waited.code).toBe(1);
    const [report] = (JSON.parse(waited.stdout) as { runs: Array<{ runId: string; status: string }> }).runs;
    expect(report?.status).toBe("failed");
    const runId = report?.runId ?? "";

    const status = await queuedStatus(ws, url, runId, prefix);
    expect(status.run).toMatchObject({ status: "failed", counts: { passed: 1, failed: 1 } });

    const port = await freePort();
    const child = spawn(
      process.execPath,
      [FLOW_BIN, "dashboard", "--redis", url, "--redis-prefix", prefix, "--port", String(port)],
      { cwd: ws.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", () => resolve());
        void exit.then((code) => reject(new Error(`flow dashboard exited ${code}`)));
      });
      const api = (await (
        await fetch(`http://127.0.0.1:${port}/api/queues?activeQueue=runs&status=failed&page=1`)
      ).json()) as {
        queues: Array<{
          name: string;
          counts: Record<string, number>;
          jobs: Array<{ id: string; failedReason?: string }>;
        }>;
      };
      const runs = api.queues.find((q) => q.name === "runs");
      expect(runs?.counts).toMatchObject({ failed: 1, completed: 0 });
      expect(runs?.jobs.map((j) => j.id)).toEqual([runId]);
      expect(runs?.jobs[0]?.failedReason).toMatch(
        /^run failed: 1 passed, 1 failed, 0 blocked, 0 skipped; US-002 failed: /,
      );
    } finally {
      child.kill("SIGINT");
    }
    expect(await exit).toBe(0);
  }, 60_000);
});
