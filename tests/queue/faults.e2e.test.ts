import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FAST_FAILOVER, type FlowWorker, startFlowWorker, until } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { enqueue, finishedRun, queuedStatus } from "../helpers/queuedRuns.js";
import { type RedisServer, startRedisServer } from "../helpers/redisServer.js";

// Each test owns a redis-server and real `flow worker` processes with short lock and stall timings,
// kills something, and asserts on the MCP servers' state: lines in files written by our slow stdio
// server, entities in server-memory's file.

const entity = (name: string) => ({ name, entityType: "feature", observations: [] });
const append = (file: string, line: string) => ({ tool: "slow__append_line", args: { file, line } });
const createEntity = (name: string) => ({ tool: "memory__create_entities", args: { entities: [entity(name)] } });
const read = (ws: ReturnType<typeof flowWorkspace>, file: string) =>
  existsSync(join(ws.files, file)) ? readFileSync(join(ws.files, file), "utf8") : "";

let redis: RedisServer | undefined;
let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGKILL")));
  workers = [];
  await redis?.stop();
  redis = undefined;
});

async function worker(ws: ReturnType<typeof flowWorkspace>, name: string, args: string[] = []) {
  if (!redis) throw new Error("no redis");
  const started = await startFlowWorker(ws, redis.url, [...FAST_FAILOVER, "--name", name, ...args]);
  workers.push(started);
  return started;
}

describe("flow worker under faults", () => {
  it("kill -9 mid-call: the run finishes on another worker, idempotent calls retried, a non-idempotent call in flight blocks with outcome_unknown, nothing runs twice", async () => {
    redis = await startRedisServer();
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            append("log.txt", "a"),
            { tool: "slow__put_then_wait", args: { file: "put.txt", content: "P", waitFor: "release" } },
            append("log.txt", "b"),
          ],
        },
      },
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [{ tool: "slow__append_line_then_wait", args: { file: "x.txt", line: "x", waitFor: "release-x" } }],
        },
      },
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: {
          step1: [
            createEntity("e1"),
            { tool: "slow__wait_for", args: { file: "release", note: "waiting-3.txt" } },
            createEntity("e2"),
          ],
        },
      },
    ]);
    const a = await worker(ws, "A");
    const [runId] = await enqueue(ws, redis.url, ["prd.json", "--per-story"]);
    if (!runId) throw new Error("nothing queued");
    // All three stories are inside a call on worker A, each call before it answered and journaled (a call
    // starts only once the one before it has been): story 3 has started its wait, not only created e1.
    await until(
      "every story to be mid-call on worker A",
      () =>
        read(ws, "log.txt") === "a\n" &&
        read(ws, "put.txt.calls") === "put\n" &&
        read(ws, "x.txt") === "x\n" &&
        read(ws, "waiting-3.txt") !== "",
    );
    expect(ws.entities()).toEqual(["e1"]);
    await worker(ws, "B");
    await a.stop("SIGKILL");
    writeFileSync(join(ws.files, "release"), "");

    const run = await finishedRun(redis.url, runId);
    // Non-idempotent side effects happened once each; the idempotent put ran again on worker B.
    expect(read(ws, "log.txt")).toBe("a\nb\n");
    expect(read(ws, "x.txt")).toBe("x\n");
    expect(read(ws, "put.txt.calls")).toBe("put\nput\n");
    expect(ws.entities()).toEqual(["e1", "e2"]);
    expect(run.status).toBe("failed");
    const { stories } = await queuedStatus(ws, redis.url, runId);
    expect(stories.map((s) => [s.id, s.status])).toEqual([
      ["US-001", "passed"],
      ["US-002", "blocked"],
      ["US-003", "passed"],
    ]);
    const blocked = stories[1];
    expect(blocked?.summary).toContain("outcome_unknown");
    expect(blocked?.steps[0]?.refusals[0]).toMatchObject({
      tool: "slow__append_line_then_wait",
      code: "outcome_unknown",
    });
    expect(blocked?.worker).toBe("B");
  }, 90_000);

  it("kill -9 between calls: another worker replays what was recorded and every step passes", async () => {
    redis = await startRedisServer();
    const ws = flowWorkspace();
    // The gate waits (no tool call in flight) until the test releases it.
    const gate = [
      process.execPath,
      "-e",
      "const fs=require('node:fs');fs.writeFileSync('files/gate-waiting','');const t=setInterval(()=>{if(fs.existsSync('files/release')){clearInterval(t)}},50)",
    ];
    const before = ws.writePrd([
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: { step1: [append("log.txt", "a"), createEntity("e1")] },
        verify: [{ run: gate }],
      },
      { mcpTools: { step1: ["slow", "memory"] }, calls: { step1: [append("log.txt", "b"), createEntity("e2")] } },
    ]);
    const a = await worker(ws, "A");
    const [runId] = await enqueue(ws, redis.url, ["prd.json"]);
    if (!runId) throw new Error("nothing queued");
    await until("the first story's gate to wait", () => existsSync(join(ws.files, "gate-waiting")));
    await worker(ws, "B");
    await a.stop("SIGKILL");
    writeFileSync(join(ws.files, "release"), "");

    const run = await finishedRun(redis.url, runId);
    expect(run.status).toBe("passed");
    expect(run.counts).toEqual({ passed: 2, failed: 0, blocked: 0, skipped: 0 });
    expect(run.attempts).toBe(2);
    expect(read(ws, "log.txt")).toBe("a\nb\n");
    expect(ws.entities()).toEqual(["e1", "e2"]);
    // Only `flow enqueue --wait` on this machine writes the PRD; the workers never touch it.
    expect(readFileSync(ws.prd, "utf8")).toBe(before);
  }, 90_000);

  it("Redis killed and restarted (AOF on) mid-run: workers reconnect and the run completes", async () => {
    redis = await startRedisServer({ appendOnly: true, args: ["--appendfsync", "always"] });
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow", "memory"] },
        calls: {
          step1: [
            append("log.txt", "a"),
            { tool: "slow__wait_for", args: { file: "release", note: "waiting.txt" } },
            append("log.txt", "b"),
            createEntity("e1"),
          ],
        },
      },
    ]);
    await worker(ws, "A", ["--lock-duration", "10000"]);
    const [runId] = await enqueue(ws, redis.url, ["prd.json"]);
    if (!runId) throw new Error("nothing queued");
    // Killed while a call is in flight (the wait, which starts only once the append before it was answered
    // and journaled), not after a pause guessed long enough for that.
    await until("the wait after the first call", () => read(ws, "waiting.txt") !== "");
    expect(read(ws, "log.txt")).toBe("a\n");
    await redis.kill();
    await new Promise((r) => setTimeout(r, 1_000));
    await redis.restart();
    writeFileSync(join(ws.files, "release"), "");

    const run = await finishedRun(redis.url, runId);
    expect(run.status).toBe("passed");
    expect(read(ws, "log.txt")).toBe("a\nb\n");
    expect(ws.entities()).toEqual(["e1"]);
  }, 90_000);

  it("SIGTERM a busy worker: the call in flight finishes, it exits 0, nothing is left active, the run continues elsewhere", async () => {
    redis = await startRedisServer();
    const ws = flowWorkspace();
    ws.writePrd([
      {
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__append_line_then_wait", args: { file: "log.txt", line: "one", waitFor: "release" } },
            append("log.txt", "two"),
          ],
        },
      },
    ]);
    const a = await worker(ws, "A");
    const [runId] = await enqueue(ws, redis.url, ["prd.json"]);
    if (!runId) throw new Error("nothing queued");
    await until("the call to be in flight", () => read(ws, "log.txt") === "one\n");
    a.child.kill("SIGTERM");
    await until("worker A to drain", () => a.log().includes("draining"));
    writeFileSync(join(ws.files, "release"), "");
    expect(await a.exit).toBe(0);
    expect(read(ws, "log.txt")).toBe("one\n");
    const status = await ws.flow(["status", "--redis", redis.url, "--json"]);
    const { queues, runs } = JSON.parse(status.stdout) as {
      queues: { runs: Record<string, number>; calls: Record<string, number> };
      runs: Array<{ runId: string; status: string }>;
    };
    expect(queues.runs.active).toBe(0);
    expect(queues.calls.active).toBe(0);
    expect(queues.calls.completed).toBe(1);
    expect(runs.find((r) => r.runId === runId)?.status).toBe("queued");

    await worker(ws, "B");
    const run = await finishedRun(redis.url, runId);
    expect(run.status).toBe("passed");
    // The call that finished during the drain was journaled: B replays it and runs only the second.
    expect(read(ws, "log.txt")).toBe("one\ntwo\n");
  }, 90_000);
});
