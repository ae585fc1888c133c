import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker, until } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { finishedRun, queuedStatus } from "../helpers/queuedRuns.js";

// A queued run whose call needs approval: the request is kept in Redis, the job waits in the queue
// (no worker busy with it), `flow approve --redis` decides from another process, and a worker takes
// the run up again and finishes it. Real redis-server, real `flow worker`, server-filesystem.

let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGTERM")));
  workers = [];
});

describe("flow enqueue --approve", () => {
  it("keeps the pending approval in Redis; flow approve --redis decides; a worker finishes the run", async () => {
    const prefix = `approve-${process.pid}-${Date.now()}:`;
    const url = inject("redisUrl");
    const ws = flowWorkspace();
    const target = join(ws.files, "queued.txt");
    ws.writePrd([
      {
        mcpTools: { step1: ["filesystem"] },
        calls: { step1: [{ tool: "filesystem__write_file", args: { path: target, content: "queued\n" } }] },
      },
    ]);
    const redisArgs = ["--redis", url, "--redis-prefix", prefix];
    const queued = await ws.flow(["enqueue", "prd.json", ...redisArgs, "--approve", "destructive", "--json"]);
    expect(queued.code, queued.stderr).toBe(0);
    const runId = (JSON.parse(queued.stdout) as { runs: Array<{ runId: string }> }).runs[0]?.runId ?? "";
    workers.push(await startFlowWorker(ws, url, ["--redis-prefix", prefix]));

    // Before the worker asked: nothing waits (exit 1). Once it asked: the key is listed (exit 2 without keys).
    const listed = await until("the queued run's call to wait for approval", async () => {
      const r = await ws.flow(["approve", runId, ...redisArgs]);
      return r.code === 2 ? r : undefined;
    });
    expect(listed.stderr).toContain(`${runId}/US-001/step1/1 (US-001 step 1: filesystem__write_file)`);
    const status = await queuedStatus(ws, url, runId, prefix);
    expect(status.stories[0]?.status).toBe("awaiting_approval");
    expect(existsSync(target)).toBe(false);

    const unknownRun = await ws.flow(["approve", "q-nosuch", "--all", ...redisArgs]);
    expect(unknownRun.code).toBe(2);
    const approved = await ws.flow(["approve", runId, "--all", "--reason", "release day", ...redisArgs]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain("a flow worker takes the queued run up again");

    const run = await finishedRun(url, runId, { prefix });
    expect(run.status).toBe("passed");
    expect(readFileSync(target, "utf8")).toBe("queued\n");
    const nothing = await ws.flow(["approve", runId, "--all", ...redisArgs]);
    expect(nothing.code).toBe(1);
  }, 90_000);
});
