import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientPool, ConfirmationGate, createToolChain, describeFromPool, Guard, inMemoryServers } from "@meshflow/mcp";
import { connectRedis, QueueExecutor, QueueWorker, type RedisClient } from "@meshflow/queue";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { type Row, stats } from "../measure.js";

/** Calls in flight at once (the executor side) and jobs at once (the worker side). */
const CONCURRENCY = 50;
/** Calls per throughput round. */
const CALLS = 3_000;
/** Throughput rounds per side, alternating which goes first; the goal is judged on the median of the rounds' ratios. */
const ROUNDS = 7;
/** Sequential single calls timed for the round trip. */
const ROUND_TRIPS = 2_000;

/** A no-op tool on an in-memory MCP server; not idempotent, so every call is claimed and fenced. */
function noopServer(): McpServer {
  const server = new McpServer({ name: "bench-noop", version: "1.0.0" });
  server.registerTool(
    "noop",
    { description: "Does nothing", annotations: { readOnlyHint: false, idempotentHint: false } },
    async () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return server;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A redis-server of the bench's own: no persistence, noeviction, loopback. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const probe = await connectRedis(url, { connectTimeoutMs: 200 });
      probe.disconnect();
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `total` calls of `call`, `CONCURRENCY` in flight, and returns calls per second. */
async function throughput(total: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await call(next++);
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

interface Side {
  /** One call / job and its result back to the caller. */
  call(i: number): Promise<unknown>;
  close(): Promise<void>;
}

let round = 0;

/** meshflow: QueueExecutor → BullMQ → QueueWorker (journal claim and commit, full middleware chain) → in-memory tool. */
async function meshflowSide(redis: RedisClient): Promise<Side> {
  const prefix = `bench-q${++round}:`;
  const { servers, transportFactory } = inMemoryServers({ bench: noopServer });
  const pool = new ClientPool(servers, { transportFactory });
  await pool.discover();
  const chain = createToolChain({
    pool,
    guard: new Guard({ callsPerMinute: 100_000_000 }),
    confirmation: new ConfirmationGate(),
  });
  const worker = await QueueWorker.start({
    redis,
    settings: { prefix },
    queues: ["calls"],
    concurrency: CONCURRENCY,
    chain,
    describe: describeFromPool(pool),
  });
  const executor = await QueueExecutor.open({ redis, settings: { prefix } });
  const repertoire = new Set(["bench__noop"]);
  return {
    async call(i) {
      const result = await executor.submit(
        { key: `bench${round}/S/step1/${i}`, tool: "bench__noop", args: {}, runId: `bench${round}` },
        { repertoire, annotationAware: true },
      );
      if (result.isError) throw new Error(`bench call failed: ${JSON.stringify(result)}`);
      return result;
    },
    async close() {
      await executor.close();
      await worker.drain();
      await pool.close();
    },
  };
}

/**
 * Raw BullMQ on the same Redis: `queue.add` of a no-op job, a Worker whose processor returns at once,
 * and the result back to the caller from the same `QueueEvents` stream (listeners by job id, as a
 * BullMQ user waiting for results would write it).
 */
async function rawSide(redis: RedisClient): Promise<Side> {
  const prefix = `bench-raw${++round}`;
  const queue = new Queue("raw", { connection: redis, prefix });
  // Read from "now" on the server's clock, not `$`: a job finished before the first XREAD is not missed.
  const [seconds, micros] = await redis.time();
  const lastEventId = `${Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - 1}-0`;
  const events = new QueueEvents("raw", { connection: redis, prefix, lastEventId });
  const worker = new Worker("raw", async (job: Job) => ({ ok: job.id }), {
    connection: redis,
    prefix,
    concurrency: CONCURRENCY,
  });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
  const waiting = new Map<string, (value: unknown) => void>();
  events.on("completed", ({ jobId, returnvalue }) => {
    const resolve = waiting.get(jobId);
    waiting.delete(jobId);
    resolve?.(returnvalue);
  });
  const keep = { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 3600, count: 10_000 } };
  return {
    call(i) {
      const jobId = `raw${round}-${i}`;
      const done = new Promise((resolve) => waiting.set(jobId, resolve));
      return queue.add("noop", {}, { jobId, ...keep }).then(() => done);
    },
    async close() {
      await worker.close();
      await events.close();
      await queue.close();
    },
  };
}

/** The `queue` suite: tool calls per second through QueueExecutor vs raw BullMQ, and the single-call round trip. */
export async function queueSuite(): Promise<Row[]> {
  const server = await startRedis();
  const redis = await connectRedis(server.url, { role: "worker" });
  try {
    const meshflow: number[] = [];
    const raw: number[] = [];
    const ratios: number[] = [];
    // Warm both paths (JIT, script cache, connections) before anything is timed.
    for (const make of [rawSide, meshflowSide]) {
      const side = await make(redis);
      await throughput(1_000, (i) => side.call(i));
      await side.close();
    }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [rawSide, meshflowSide] : [meshflowSide, rawSide];
      for (const make of order) {
        const side = await make(redis);
        const rate = await throughput(CALLS, (i) => side.call(i));
        await side.close();
        (make === rawSide ? raw : meshflow).push(rate);
      }
      // Paired rounds: load from other processes that comes and goes hits both sides of a pair alike.
      ratios.push((meshflow.at(-1) ?? 0) / (raw.at(-1) ?? 1));
    }
    const median = (xs: number[]) => stats(xs).p50;

    const latency = async (make: (redis: RedisClient) => Promise<Side>) => {
      const side = await make(redis);
      for (let i = 0; i < 200; i++) await side.call(i);
      const samples: number[] = [];
      for (let i = 200; i < 200 + ROUND_TRIPS; i++) {
        const start = performance.now();
        await side.call(i);
        samples.push(performance.now() - start);
      }
      await side.close();
      return stats(samples);
    };
    const rawTrip = await latency(rawSide);
    const trip = await latency(meshflowSide);
    const rawRate = median(raw);
    const rate = median(meshflow);
    const ratio = median(ratios);
    return [
      {
        suite: "queue",
        case: `raw BullMQ add+process+result, ${CONCURRENCY} in flight`,
        value: rawRate,
        unit: "calls/s",
      },
      {
        suite: "queue",
        case: `QueueExecutor no-op tool, ${CONCURRENCY} in flight`,
        value: rate,
        unit: "calls/s",
        baseline: { label: "raw BullMQ", value: rawRate },
      },
      {
        suite: "queue",
        case: `QueueExecutor / raw BullMQ, median of ${ROUNDS} paired rounds`,
        value: ratio,
        unit: "×",
        goal: "≥ 0.70×",
        pass: ratio >= 0.7,
      },
      { suite: "queue", case: "raw BullMQ single round trip p50", value: rawTrip.p50, unit: "ms" },
      { suite: "queue", case: "raw BullMQ single round trip p99", value: rawTrip.p99, unit: "ms" },
      {
        suite: "queue",
        case: "QueueExecutor single call round trip p50",
        value: trip.p50,
        unit: "ms",
        baseline: { label: "raw BullMQ p50", value: rawTrip.p50 },
        goal: "≤ 1.5 ms",
        pass: trip.p50 <= 1.5,
      },
      {
        suite: "queue",
        case: "QueueExecutor single call round trip p99",
        value: trip.p99,
        unit: "ms",
        baseline: { label: "raw BullMQ p99", value: rawTrip.p99 },
      },
    ];
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
