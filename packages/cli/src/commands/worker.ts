import { join, resolve } from "node:path";
import { loadMcpConfig, MeshflowError } from "@meshflow/core";
import type { QueueExecutor, QueueName, WorkerEvent } from "@meshflow/queue";
import type { RunEnvironment } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";
import { processTracing } from "../tracing.js";
import { catalogsByModel, type ModelFlags } from "./modelSettings.js";
import { onRedis } from "./onRedis.js";
import { agentPaths, resolveSkillsDir } from "./runEnvironment.js";

/** Options of `flow worker`. */
export interface WorkerOptions extends ModelFlags {
  redis?: string;
  redisPrefix: string;
  concurrency: number;
  runConcurrency: number;
  queues?: string[];
  mcpConfig?: string;
  routing?: string;
  agents?: string[] | string;
  skills?: string;
  store: string;
  workdir: string;
  name?: string;
  callsPerMinute: number;
  lockDuration: number;
  stalledInterval: number;
  maxStalled: number;
  /** How long SIGTERM/Ctrl-C waits for the drain before stopping anyway (Redis gone, a call that does not end). */
  drainTimeout: number;
}

const QUEUES: readonly QueueName[] = ["runs", "calls"];

function queuesOf(options: WorkerOptions): QueueName[] {
  const wanted = options.queues?.length ? options.queues : QUEUES;
  const unknown = wanted.filter((q) => !(QUEUES as readonly string[]).includes(q));
  if (unknown.length)
    throw new MeshflowError("usage", `--queues: unknown queue ${unknown.join(", ")}; the queues are runs and calls`);
  return QUEUES.filter((q) => wanted.includes(q));
}

function describe(event: WorkerEvent, reconnectCapMs: number): string {
  switch (event.type) {
    case "run.started":
      return `run ${event.runId}: ${event.job} started (attempt ${event.attempt})`;
    case "run.finished":
      return `run ${event.runId}: ${event.job} ${event.status}`;
    case "run.requeued":
      return `run ${event.runId}: ${event.job} back in the queue: ${event.reason}`;
    case "run.failed":
      return `run ${event.runId}: ${event.job} could not run: ${event.reason}`;
    case "redis.down":
      return `Redis unreachable (${event.message}); reconnecting with backoff (up to ${reconnectCapMs / 1000} s between tries)`;
    case "redis.up":
      return `Redis is back after ${(event.downMs / 1000).toFixed(1)} s`;
    case "job.stalled":
      return `${event.queue} job ${event.jobId}: its worker stopped answering; it is back in the queue`;
    case "error":
      return `${event.queue}: ${event.message}`;
  }
}

/** Resolves on the first SIGTERM or SIGINT; a second one exits at once. */
function untilSignalled(output: Output): Promise<string> {
  return new Promise((resolveSignal) => {
    let seen = false;
    const handler = (signal: NodeJS.Signals) => {
      if (seen) {
        output.err(`flow worker: ${signal} again; exiting without draining`);
        process.exit(130);
      }
      seen = true;
      resolveSignal(signal);
    };
    process.on("SIGTERM", handler);
    process.on("SIGINT", handler);
  });
}

/**
 * `flow worker`: processes tool-call jobs (over this machine's MCP servers, through the middleware
 * chain) and run jobs (PRDs, with this machine's specialists and skills) until SIGTERM or SIGINT,
 * then drains: no new job starts, calls in flight finish and are journaled, active runs stop cleanly
 * and go back to the queue for another worker; exit 0.
 */
export async function workerCommand(options: WorkerOptions, output: Output): Promise<ExitCode> {
  const url = options.redis;
  if (!url) throw new MeshflowError("usage", "flow worker needs --redis <url> (or FLOW_REDIS_URL)");
  return onRedis(url, () => work(url, options, output));
}

async function work(url: string, options: WorkerOptions, output: Output): Promise<ExitCode> {
  const queues = queuesOf(options);
  const [
    {
      assertNoEviction,
      connectRedis,
      defaultWorkerName,
      QueueExecutor,
      QueueWorker,
      queueSettings,
      RECONNECT_CAP_MS,
      redactRedisUrl,
    },
    mcp,
  ] = await Promise.all([import("@meshflow/queue"), import("@meshflow/mcp")]);
  // One name for the worker's jobs, its log and its spans' resource.
  const name = options.name ?? defaultWorkerName();
  const settings = queueSettings({ prefix: options.redisPrefix });
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const storeRoot = resolve(options.store);
  const redis = await connectRedis(url, { role: "worker", name: "meshflow:worker" });
  const tracing = await processTracing({ workerName: name });
  let pool: InstanceType<typeof mcp.ClientPool> | undefined;
  let executor: QueueExecutor | undefined;
  let environment: RunEnvironment | undefined;
  let forced = false;
  let deadline: number | undefined;
  try {
    await assertNoEviction(redis, url);
    pool = new mcp.ClientPool(mcpConfig.servers, { stderrDir: join(storeRoot, "logs") });
    // A lock (an emergency stop, the rate limit tripping) pauses the worker: see below.
    let onLock: (reason: string) => void = () => {};
    const guard = new mcp.Guard({
      ...(options.callsPerMinute > 0 ? { callsPerMinute: options.callsPerMinute } : { enabled: false }),
      rateLimitHint: "restart this worker with a higher --calls-per-minute <n>, or 0 to turn it off",
      onEvent: (event) => {
        if (event.type === "guard.locked") onLock(event.reason);
      },
    });
    const chain = mcp.createToolChain({ pool, guard, metrics: new mcp.MetricsCollector() });
    let runs: import("@meshflow/queue").RunJobProcessor | undefined;
    if (queues.includes("runs")) {
      const runtime = await import("@meshflow/runtime/host");
      const { createRunJobProcessor, sweepQueuedCopies } = await import("../queue/runJobProcessor.js");
      // PRD copies a killed worker left in the store (its runs go to another worker, with a copy of its own).
      sweepQueuedCopies(storeRoot);
      const agents = agentPaths(options.agents);
      const skillsDir = resolveSkillsDir(options.skills);
      executor = await QueueExecutor.open({ redis, settings, ...(tracing ? { tracing } : {}) });
      const queueExecutor = executor;
      // The worker's pool and guard: its call jobs and its runs' calls share the servers and the limit.
      environment = await runtime.RunEnvironment.open({
        mcpConfig,
        ...(options.routing ? { routingFile: options.routing } : {}),
        agents: agents.paths,
        specialists: agents,
        ...(skillsDir ? { skillsDir } : {}),
        store: storeRoot,
        clientPool: pool,
        guard,
        executor: () => queueExecutor,
        models: catalogsByModel(options),
      });
      runs = createRunJobProcessor({
        environment,
        workdir: resolve(options.workdir),
        redis,
        settings,
        ...(tracing ? { tracing } : {}),
      });
    }
    const worker = await QueueWorker.start({
      redis,
      settings,
      queues,
      concurrency: options.concurrency,
      runConcurrency: options.runConcurrency,
      chain,
      describe: mcp.describeFromPool(pool),
      ...(runs ? { runs } : {}),
      ...(tracing ? { tracing } : {}),
      lockDurationMs: options.lockDuration,
      stalledIntervalMs: options.stalledInterval,
      maxStalledCount: options.maxStalled,
      name,
      onEvent: (event) => output.err(`flow worker: ${describe(event, RECONNECT_CAP_MS)}`),
    });
    onLock = (reason) => {
      output.err(
        `flow worker ${worker.name}: paused: its guard locked (${reason}); it takes no new jobs, calls in flight finish, ` +
          "its active runs go back to the queue (no story fails because of the lock) for a worker whose guard is not locked; restart it to take jobs again",
      );
      void worker.pause(reason).catch(() => {});
    };
    output.err(
      `flow worker ${worker.name}: processing ${queues.join(" and ")} on ${redactRedisUrl(url)} ` +
        `(prefix ${worker.settings.prefix}); SIGTERM drains and exits`,
    );
    const signal = await untilSignalled(output);
    output.err(
      `flow worker ${worker.name}: ${signal}: draining within ${options.drainTimeout} ms (calls in flight finish, active runs go back to the queue)`,
    );
    // The whole stop fits in the drain timeout: the drain proper, then a short forced close if needed.
    deadline = Date.now() + options.drainTimeout;
    const graceful = Math.max(options.drainTimeout - STOP_RESERVE_MS, Math.floor(options.drainTimeout / 2));
    const active = worker.active;
    const drained =
      (await worker.drain({ timeoutMs: graceful })) && (await within(executor?.close(), deadline - Date.now()));
    output.err(
      drained
        ? `flow worker ${worker.name}: drained`
        : `flow worker ${worker.name}: could not drain in time (--drain-timeout ${options.drainTimeout} ms); stopping anyway: ` +
            `${active} active run(s) that could not be handed back return to the queue through BullMQ's stall handling`,
    );
    forced = !drained;
    return EXIT.ok;
  } finally {
    // Bounded: a Redis that is gone must not keep a stopping worker alive past its deadline.
    const left = (ms: number) => (deadline === undefined ? ms : Math.min(ms, deadline - Date.now()));
    await within(environment?.close(), left(2_000));
    await within(executor?.close(), forced ? 0 : left(2_000));
    await within(pool?.close(), left(5_000));
    if (forced || !(await within(redis.quit(), left(2_000)))) redis.disconnect();
    // Clients BullMQ duplicated may still wait on the lost connection: they hold no work now.
    if (forced) setTimeout(() => process.exit(process.exitCode ?? EXIT.ok), Math.max(left(100), 0)).unref();
  }
}

/** What the forced part of a stop may take out of `--drain-timeout` (closing connections and servers). */
const STOP_RESERVE_MS = 1_500;

/** Waits for `pending` at most `ms`: true when it settled in time (a rejection counts as settled). */
async function within(pending: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!pending) return true;
  let timer: NodeJS.Timeout | undefined;
  const settled = pending.then(
    () => true,
    () => true,
  );
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(ms, 0));
  });
  const result = await Promise.race([settled, expired]);
  clearTimeout(timer);
  return result;
}
