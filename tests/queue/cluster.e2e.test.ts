import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectRedis, isCluster } from "@meshflow/queue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAST_FAILOVER, type FlowWorker, startFlowWorker, until } from "../helpers/flowWorker.js";
import { type FlowWorkspace, flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue, finishedRun, type queuedStatus } from "../helpers/queuedRuns.js";
import { type RedisCluster, startRedisCluster } from "../helpers/redisCluster.js";
import { freePort, redisCommand } from "../helpers/redisServer.js";
import { FLOW_BIN } from "../helpers/runFlow.js";

// A real 3-master Redis Cluster (three redis-server processes joined by redis-cli --cluster create)
// carries a batch over two real `flow worker`s; one is killed -9 mid-batch. Every key of meshflow's
// (BullMQ's queues, the call journal, the run board) must sit in the prefix's one hash slot, or the
// Lua scripts that touch several keys at once would fail with CROSSSLOT.

const append = (file: string, line: string) => ({ tool: "slow__append_line", args: { file, line } });
const read = (ws: FlowWorkspace, file: string) =>
  existsSync(join(ws.files, file)) ? readFileSync(join(ws.files, file), "utf8") : "";

let cluster: RedisCluster;
const workers: FlowWorker[] = [];
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGKILL")));
  await cluster?.stop();
});

describe("queued runs on a Redis Cluster", () => {
  it("drains a batch over two workers, one killed -9 mid-batch, with no non-idempotent call run twice", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [{ tool: "slow__append_line_then_wait", args: { file: "x.txt", line: "x", waitFor: "release" } }],
        },
      },
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            append("two.txt", "c"),
            { tool: "slow__wait_for", args: { file: "release", note: "waiting-2.txt" } },
            append("two.txt", "d"),
          ],
        },
      },
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            append("three.txt", "e"),
            append("three.txt", "f"),
            // Read-only (run again after the kill if it was in flight): says that both appends were answered.
            { tool: "slow__wait_for", args: { file: "three.txt", note: "waiting-3.txt" } },
          ],
        },
      },
    ]);
    const a = await startFlowWorker(ws, cluster.url, [...FAST_FAILOVER, "--name", "A"]);
    workers.push(a);
    const [runId] = await enqueue(ws, cluster.url, ["prd.json", "--per-story"]);
    if (!runId) throw new Error("nothing queued");
    // Story 1 is inside its append, story 2 inside its wait (so its append was answered and journaled: a
    // call starts only once the one before it has been), story 3 past both of its appends.
    await until(
      "stories to be mid-call on worker A",
      () => read(ws, "x.txt") === "x\n" && read(ws, "waiting-2.txt") !== "" && read(ws, "waiting-3.txt") !== "",
      60_000,
    );
    workers.push(await startFlowWorker(ws, cluster.url, [...FAST_FAILOVER, "--name", "B"]));
    await a.stop("SIGKILL");
    writeFileSync(join(ws.files, "release"), "");

    const run = await finishedRun(cluster.url, runId, { timeoutMs: 90_000 });
    // Each non-idempotent append happened exactly once; the one in flight when A died is not repeated.
    expect(read(ws, "x.txt")).toBe("x\n");
    expect(read(ws, "two.txt")).toBe("c\nd\n");
    expect(read(ws, "three.txt")).toBe("e\nf\n");
    expect(run.status).toBe("failed");
    // `--redis-cluster host:port,…` is the same cluster as `--redis redis+cluster://…`.
    const status = await ws.flow(["status", "--redis-cluster", cluster.nodes, runId, "--json"]);
    expect(status.code).toBe(0);
    const { stories } = JSON.parse(status.stdout) as Awaited<ReturnType<typeof queuedStatus>>;
    expect(stories.map((s) => [s.id, s.status])).toEqual([
      ["US-001", "blocked"],
      ["US-002", "passed"],
      ["US-003", "passed"],
    ]);
    expect(stories[0]?.summary).toContain("outcome_unknown");

    // Every key is under the hash-tagged prefix, so all of them share one slot.
    const redis = await connectRedis(cluster.url, { role: "client" });
    try {
      expect(isCluster(redis)).toBe(true);
      const keys = (await Promise.all(isCluster(redis) ? redis.nodes("master").map((n) => n.keys("*")) : [])).flat();
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((k) => !k.startsWith("{meshflow}:"))).toEqual([]);
      expect(keys).toContain(`{meshflow}:run:${runId}`);
    } finally {
      redis.disconnect();
    }
  }, 150_000);

  it("refuses (exit 3) a cluster where one master may evict keys, naming that node", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("n.txt", "n")] } }]);
    const port = cluster.ports[1] ?? 0;
    await redisCommand(port, "CONFIG SET maxmemory-policy allkeys-lru");
    try {
      const result = await ws.flow(["enqueue", "prd.json", "--redis-cluster", cluster.nodes]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`node 127.0.0.1:${port}`);
      expect(result.stderr).toContain("maxmemory-policy allkeys-lru");
    } finally {
      await redisCommand(port, "CONFIG SET maxmemory-policy noeviction");
    }
  }, 60_000);

  it("flow dashboard serves the cluster's queues", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("d.txt", "d")] } }]);
    const prefix = "{dash}:";
    await enqueue(ws, cluster.url, ["prd.json", "--redis-prefix", prefix]);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [FLOW_BIN, "dashboard", "--redis-cluster", cluster.nodes, "--redis-prefix", prefix, "--port", String(port)],
      { cwd: ws.dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          if (d.toString("utf8").includes("dashboard: ")) resolve();
        });
        void exit.then((code) => reject(new Error(`flow dashboard exited ${code}`)));
      });
      const api = (await (await fetch(`http://127.0.0.1:${port}/api/queues`)).json()) as {
        queues: Array<{ name: string; counts: Record<string, number> }>;
      };
      expect(api.queues.map((q) => q.name).sort()).toEqual(["calls", "runs"]);
      expect(api.queues.find((q) => q.name === "runs")?.counts.waiting).toBe(1);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exit).toBe(0);
  }, 60_000);

  it("refuses --redis and --redis-cluster together (exit 2)", async () => {
    const ws = flowWorkspace();
    const result = await ws.flow(["status", "--redis", "redis://127.0.0.1:1", "--redis-cluster", cluster.nodes]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("give --redis or --redis-cluster, not both");
  });
});
