import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { finishedRun, queuedStatus } from "../helpers/queuedRuns.js";
import { freePort, redisCommand, startRedisServer } from "../helpers/redisServer.js";

const append = (line: string) => ({ tool: "slow__append_line", args: { file: "log.txt", line } });
const read = (ws: ReturnType<typeof flowWorkspace>, file: string) =>
  existsSync(join(ws.files, file)) ? readFileSync(join(ws.files, file), "utf8") : "";

let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGTERM")));
  workers = [];
});

let unique = 0;
function setup() {
  const prefix = `enq-${process.pid}-${++unique}-${Date.now()}:`;
  const url = inject("redisUrl");
  const ws = flowWorkspace();
  const redisArgs = ["--redis", url, "--redis-prefix", prefix];
  const startWorker = async () => {
    const worker = await startFlowWorker(ws, url, ["--redis-prefix", prefix]);
    workers.push(worker);
    return worker;
  };
  return { prefix, url, ws, redisArgs, startWorker };
}

describe("flow enqueue and flow worker", () => {
  it("the same PRD enqueued twice while queued is one run; once finished, it can run again", async () => {
    const { prefix, url, ws, redisArgs, startWorker } = setup();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("a")] } }]);
    const first = await ws.flow(["enqueue", "prd.json", ...redisArgs]);
    expect(first.code).toBe(0);
    const runId = /^queued (\S+)/.exec(first.stdout)?.[1];
    expect(runId).toBeDefined();
    const second = await ws.flow(["enqueue", "prd.json", ...redisArgs, "--json"]);
    expect(JSON.parse(second.stdout)).toEqual({ runs: [{ runId, file: "prd.json", duplicate: true }] });

    await startWorker();
    const run = await finishedRun(url, runId ?? "", { prefix });
    expect(run.status).toBe("passed");
    expect(read(ws, "log.txt")).toBe("a\n");

    // Finished: the same content is a new run, and --wait marks the PRD on this machine.
    const again = await ws.flow(["enqueue", "prd.json", ...redisArgs, "--wait", "--json"]);
    expect(again.code).toBe(0);
    const [report] = (
      JSON.parse(again.stdout) as { runs: Array<{ runId: string; duplicate: boolean; status: string }> }
    ).runs;
    expect(report).toMatchObject({ duplicate: false, status: "passed" });
    expect(report?.runId).not.toBe(runId);
    expect(read(ws, "log.txt")).toBe("a\na\n");
    const story = JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0];
    expect(story).toMatchObject({ passes: true });
    expect(story.notes).toContain(`Passed in meshflow queued run ${report?.runId}`);
  }, 60_000);

  it("per story: a poison tool fails its story with the error, a story the workers cannot run fails, the others pass, the run concludes", async () => {
    const { prefix, url, ws, redisArgs, startWorker } = setup();
    ws.writePrd([
      { mcpTools: { step1: ["slow"] }, calls: { step1: [append("one")] } },
      {
        mcpTools: { step1: ["slow"] },
        calls: { step1: [{ tool: "slow__always_fail", args: { reason: "poison" } }] },
      },
      { mcpTools: { step1: ["ghost"] }, calls: { step1: [{ tool: "ghost__boo", args: {} }] } },
      { mcpTools: { step1: ["slow"] }, calls: { step1: [append("four")] } },
    ]);
    await startWorker();
    const result = await ws.flow(["enqueue", "prd.json", "--per-story", "--wait", ...redisArgs]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/US-002 failed: .*always_fail: poison/);
    expect(result.stdout).toMatch(/US-003 failed: .*ghost/);
    expect(read(ws, "log.txt").split("\n").sort()).toEqual(["", "four", "one"]);
    const runId = /^queued (\S+)/.exec(result.stdout)?.[1] ?? "";
    const { run, stories } = await queuedStatus(ws, url, runId, prefix);
    expect(run).toMatchObject({ status: "failed", counts: { passed: 2, failed: 2, blocked: 0, skipped: 0 } });
    expect(stories.map((s) => [s.id, s.status])).toEqual([
      ["US-001", "passed"],
      ["US-002", "failed"],
      ["US-003", "failed"],
      ["US-004", "passed"],
    ]);
    // US-003's job failed for good (this worker has no "ghost" server), and its parent still concluded.
    // The jobs of the stories that failed and the run's own job are failed jobs, as the run board says.
    const queues = JSON.parse((await ws.flow(["status", ...redisArgs, "--json"])).stdout).queues;
    expect(queues.runs).toMatchObject({ failed: 3, completed: 2, "waiting-children": 0, active: 0, waiting: 0 });
    const prd = JSON.parse(readFileSync(ws.prd, "utf8")).userStories as Array<{ passes: boolean }>;
    expect(prd.map((s) => s.passes)).toEqual([true, false, false, true]);
  }, 60_000);

  it("flow run --executor queue runs a PRD in the foreground with its tool calls on the workers", async () => {
    const { ws, redisArgs, startWorker } = setup();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: {
          step1: [
            append("x"),
            { tool: "memory__create_entities", args: { entities: [{ name: "q", entityType: "t", observations: [] }] } },
          ],
        },
      },
    ]);
    await startWorker();
    const result = await ws.flow(["run", "prd.json", "--executor", "queue", ...redisArgs, "--json"]);
    expect(result.code).toBe(0);
    expect(read(ws, "log.txt")).toBe("x\n");
    expect(ws.entities()).toEqual(["q"]);
    expect(JSON.parse(readFileSync(ws.prd, "utf8")).userStories[0].passes).toBe(true);
    // Both calls went through the queue as jobs a worker completed.
    const status = await ws.flow(["status", ...redisArgs, "--json"]);
    expect(JSON.parse(status.stdout).queues.calls).toMatchObject({ completed: 2, failed: 0, active: 0 });
  }, 60_000);

  it("refuses a Redis that may evict keys, or none at all (exit 3), and --redis is required (exit 2)", async () => {
    const ws = flowWorkspace();
    const redis = await startRedisServer();
    try {
      await redisCommand(redis.port, "CONFIG SET maxmemory-policy allkeys-lru");
      const evicting = await ws.flow(["worker", "--redis", redis.url]);
      expect(evicting.code).toBe(3);
      expect(evicting.stderr).toContain("maxmemory-policy allkeys-lru");
      expect(evicting.stderr).toContain("noeviction");
      const enq = await ws.flow(["enqueue", "prd.json", "--redis", redis.url]);
      expect(enq.code).toBe(2);
    } finally {
      await redis.stop();
    }
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("a")] } }]);
    const down = await ws.flow(["enqueue", "prd.json", "--redis", `redis://127.0.0.1:${await freePort()}`]);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain("cannot connect to Redis");
    const missing = await ws.flow(["worker"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--redis");
    expect(read(ws, "log.txt")).toBe("");
  }, 60_000);
});
