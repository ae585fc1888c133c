import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectRedis, QueueExecutor, type RedisClient } from "@meshflow/queue";
import type { Row } from "../measure.js";
import { startRedis } from "./queue.js";

const FLOW = fileURLToPath(new URL("../../../packages/cli/bin/flow.js", import.meta.url));
const SLEEP_SERVER = fileURLToPath(new URL("./scale/sleepServer.js", import.meta.url));

/** How long the tool takes. */
const TOOL_MS = 50;
/** Tool calls each worker runs at once (`flow worker --concurrency`, its default). */
const WORKER_CONCURRENCY = 16;
/** Worker counts measured. */
const WORKERS = [1, 2, 4];
/** Measured calls per worker (after a warm-up of one full wave per worker). */
const CALLS_PER_WORKER = 960;

interface Worker {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `flow worker --queues calls` in `dir` (its `.mcp.json` names the sleep server) and waits until it processes. */
async function startWorker(dir: string, url: string, prefix: string, name: string): Promise<Worker> {
  const child = spawn(
    process.execPath,
    [
      FLOW,
      "worker",
      "--redis",
      url,
      "--redis-prefix",
      prefix,
      "--queues",
      "calls",
      "--concurrency",
      String(WORKER_CONCURRENCY),
      "--calls-per-minute",
      "0",
      "--name",
      name,
    ],
    {
      cwd: dir,
      env: { ...process.env, FLOW_REDIS_URL: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: undefined },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8");
      if (log.includes(": processing ")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`flow worker ${name} exited ${code}: ${log}`)));
  });
  return {
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
function processCpu(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3).
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Linux's USER_HZ (what /proc/<pid>/stat counts in). */
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** `INFO cpu` of the server: CPU seconds Redis used (user + system, main thread and the rest). */
async function redisCpu(redis: RedisClient): Promise<number> {
  const text = await (redis as import("ioredis").Redis).info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(text)?.[1] ?? 0);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/** `INFO commandstats`: calls and microseconds by command. */
async function commandStats(redis: RedisClient): Promise<Map<string, { calls: number; usec: number }>> {
  const text = await (redis as import("ioredis").Redis).info("commandstats");
  const out = new Map<string, { calls: number; usec: number }>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (match?.[1]) out.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return out;
}

function diff(
  before: Map<string, { calls: number; usec: number }>,
  after: Map<string, { calls: number; usec: number }>,
): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    if (a.calls > b.calls) out.set(name, { calls: a.calls - b.calls, usec: a.usec - b.usec });
  }
  return out;
}

/** Submits `total` calls, `inFlight` at once, through the executor; calls per second. */
async function drive(executor: QueueExecutor, run: string, total: number, inFlight: number): Promise<number> {
  let next = 0;
  let failed = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        const result = await executor.submit(
          { key: `${run}/US-001/step1/${i}`, tool: "sleep__sleep", args: { ms: TOOL_MS } },
          {},
        );
        if (result.isError) failed++;
      }
    }),
  );
  const rate = total / ((performance.now() - start) / 1000);
  if (failed) throw new Error(`${failed} of ${total} calls failed`);
  return rate;
}

/** `redis-benchmark` of this Redis: requests per second of SET and GET, 50 clients, no pipelining. */
function redisBenchmark(port: number): { set: number; get: number } {
  const result = spawnSync(
    "redis-benchmark",
    ["-h", "127.0.0.1", "-p", String(port), "-q", "-n", "100000", "-c", "50", "-t", "set,get", "--csv"],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (result.status !== 0) throw new Error(`redis-benchmark failed: ${result.stderr}`);
  const rate = (name: string) => {
    const line = result.stdout.split(/\r?\n/).find((l) => l.startsWith(`"${name}"`));
    return Number(line?.split(",")[1]?.replace(/"/g, "") ?? 0);
  };
  return { set: rate("SET"), get: rate("GET") };
}

/** What one batch on `count` workers measured. */
interface Batch {
  rate: number;
  /** `INFO commandstats` difference over the batch, by command. */
  used: Map<string, { calls: number; usec: number }>;
  total: number;
  /** CPU ms per call: Redis (`INFO cpu`), the worker processes (without their MCP servers), the producer. */
  cpu: { redis: number; workers: number; producer: number };
}

/** Starts `count` workers on a fresh prefix, warms them up, measures one batch, stops them. */
async function batch(redis: RedisClient, url: string, dir: string, count: number, round: number): Promise<Batch> {
  const prefix = `bench-scale-${round}-${count}:`;
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < count; i++) workers.push(await startWorker(dir, url, prefix, `w${i + 1}`));
    const executor = await QueueExecutor.open({ redis, settings: { prefix } });
    try {
      const inFlight = 2 * WORKER_CONCURRENCY * count;
      // Warm-up: every worker spawns its MCP server on its first call.
      await drive(executor, "warm", WORKER_CONCURRENCY * count * 2, inFlight);
      const workerCpu = () => workers.reduce((sum, w) => sum + processCpu(w.child.pid), 0);
      const before = { stats: await commandStats(redis), redis: await redisCpu(redis), workers: workerCpu() };
      const producerBefore = process.cpuUsage();
      const total = CALLS_PER_WORKER * count;
      const rate = await drive(executor, "run", total, inFlight);
      const producer = process.cpuUsage(producerBefore);
      const used = diff(before.stats, await commandStats(redis));
      // `INFO commandstats` and `INFO cpu` themselves are not part of the work.
      used.delete("info");
      return {
        rate,
        used,
        total,
        cpu: {
          redis: (((await redisCpu(redis)) - before.redis) * 1000) / total,
          workers: ((workerCpu() - before.workers) * 1000) / total,
          producer: (producer.user + producer.system) / 1000 / total,
        },
      };
    } finally {
      await executor.close();
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

/**
 * `npm run bench -- scale`: calls per second of a 50 ms tool through `QueueExecutor` and 1, 2 and 4
 * `flow worker --queues calls` processes on one local Redis (each worker `--concurrency 16`, so the
 * ideal is 16 × workers / 50 ms), in rounds alternating the order of the worker counts, medians; the
 * ratio to linear scaling (median of the rounds' ratios); Redis commands and Redis CPU time per tool
 * call from `INFO commandstats` and `INFO cpu`; the workers' and the producer's CPU per call; and
 * `redis-benchmark`'s SET/GET requests per second on the same server, for docs/scaling.md.
 */
export async function scaleSuite(): Promise<Row[]> {
  const redisServer = await startRedis();
  const port = Number(new URL(redisServer.url).port);
  const dir = mkdtempSync(join(tmpdir(), "meshflow-bench-scale-"));
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { sleep: { command: process.execPath, args: [SLEEP_SERVER] } } }),
  );
  const redis = await connectRedis(redisServer.url, { role: "worker" });
  const rounds = Number(process.env.MESHFLOW_BENCH_SCALE_ROUNDS ?? 3);
  const batches = new Map<number, Batch[]>(WORKERS.map((count) => [count, []]));
  const ratios: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? WORKERS : [...WORKERS].reverse();
      const rates = new Map<number, number>();
      for (const count of order) {
        const measured = await batch(redis, redisServer.url, dir, count, round);
        batches.get(count)?.push(measured);
        rates.set(count, measured.rate);
        if (process.env.MESHFLOW_BENCH_VERBOSE)
          process.stderr.write(`round ${round + 1}, ${count} worker(s): ${measured.rate.toFixed(1)} calls/s\n`);
      }
      ratios.push((rates.get(4) ?? 0) / (4 * (rates.get(1) ?? 1)));
    }
    const rows: Row[] = [];
    const rateOf = (count: number) => median((batches.get(count) ?? []).map((b) => b.rate));
    const one = rateOf(1);
    for (const count of WORKERS) {
      const ideal = (WORKER_CONCURRENCY * count * 1000) / TOOL_MS;
      rows.push({
        suite: "scale",
        case: `${count} worker${count > 1 ? "s" : ""} × ${WORKER_CONCURRENCY} slots, ${TOOL_MS} ms tool (ideal ${ideal}/s)`,
        value: rateOf(count),
        unit: "calls/s",
        ...(count > 1 ? { baseline: { label: `${count} × 1 worker`, value: one * count } } : {}),
      });
    }
    const ratio = median(ratios);
    rows.push({
      suite: "scale",
      case: `4 workers / (4 × 1 worker), median of ${rounds} rounds`,
      value: ratio,
      unit: "×",
      goal: "≥ 0.90×",
      pass: ratio >= 0.9,
    });
    // Commands per call are the same in every batch (up to blocking reads); the 4-worker batches give them.
    const all = batches.get(4) ?? [];
    const used = new Map<string, { calls: number; usec: number }>();
    let total = 0;
    for (const b of all) {
      total += b.total;
      for (const [name, u] of b.used) {
        const sum = used.get(name) ?? { calls: 0, usec: 0 };
        used.set(name, { calls: sum.calls + u.calls, usec: sum.usec + u.usec });
      }
    }
    const commands = [...used.values()].reduce((sum, u) => sum + u.calls, 0) / (total || 1);
    const usec = [...used.values()].reduce((sum, u) => sum + u.usec, 0) / (total || 1);
    const evalsha = (used.get("evalsha")?.calls ?? 0) / (total || 1);
    rows.push({
      suite: "scale",
      case: `Redis commands per tool call (Lua bodies included; ${evalsha.toFixed(1)} EVALSHA)`,
      value: commands,
      unit: "commands",
    });
    rows.push({
      suite: "scale",
      case: "Redis command time per tool call (commandstats usec)",
      value: usec,
      unit: "µs",
    });
    for (const count of WORKERS) {
      const cpu = batches.get(count)?.map((b) => b.cpu) ?? [];
      const part = (key: keyof Batch["cpu"]) => median(cpu.map((c) => c[key]));
      rows.push({
        suite: "scale",
        case: `CPU per call, ${count} worker${count > 1 ? "s" : ""} (Redis ${part("redis").toFixed(2)} + workers ${part("workers").toFixed(2)} + producer ${part("producer").toFixed(2)})`,
        value: part("redis") + part("workers") + part("producer"),
        unit: "ms",
      });
    }
    const redisMs = median(all.map((b) => b.cpu.redis));
    rows.push({
      suite: "scale",
      case: "one Redis core's ceiling (1 / Redis CPU per call)",
      value: 1000 / redisMs,
      unit: "calls/s",
    });
    const bench = redisBenchmark(port);
    rows.push({
      suite: "scale",
      case: "redis-benchmark SET, 50 clients, no pipelining",
      value: bench.set,
      unit: "ops/s",
    });
    rows.push({
      suite: "scale",
      case: "redis-benchmark GET, 50 clients, no pipelining",
      value: bench.get,
      unit: "ops/s",
    });
    return rows;
  } finally {
    redis.disconnect();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
