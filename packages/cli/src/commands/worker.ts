import { join, resolve } from "node:path";
import { loadMcpConfig, loadRoutingTable, MeshflowError } from "@meshflow/core";
import type { QueueExecutor, QueueName, WorkerEvent } from "@meshflow/queue";
import type { ToolPlane } from "@meshflow/runtime";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";
import { catalogsByModel, type ModelFlags } from "./modelSettings.js";
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
}

const QUEUES: readonly QueueName[] = ["runs", "calls"];

function queuesOf(options: WorkerOptions): QueueName[] {
  const wanted = options.queues?.length ? options.queues : QUEUES;
  const unknown = wanted.filter((q) => !(QUEUES as readonly string[]).includes(q));
  if (unknown.length)
    throw new MeshflowError("usage", `--queues: unknown queue ${unknown.join(", ")}; the queues are runs and calls`);
  return QUEUES.filter((q) => wanted.includes(q));
}

function describe(event: WorkerEvent): string {
  switch (event.type) {
    case "run.started":
      return `run ${event.runId}: ${event.job} started (attempt ${event.attempt})`;
    case "run.finished":
      return `run ${event.runId}: ${event.job} ${event.status}`;
    case "run.requeued":
      return `run ${event.runId}: ${event.job} back in the queue: ${event.reason}`;
    case "run.failed":
      return `run ${event.runId}: ${event.job} could not run: ${event.reason}`;
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
  if (!options.redis) throw new MeshflowError("usage", "flow worker needs --redis <url> (or FLOW_REDIS_URL)");
  const queues = queuesOf(options);
  const [{ assertNoEviction, connectRedis, QueueExecutor, QueueWorker, queueSettings, redactRedisUrl }, mcp] =
    await Promise.all([import("@meshflow/queue"), import("@meshflow/mcp")]);
  const url = options.redis;
  const settings = queueSettings({ prefix: options.redisPrefix });
  const mcpConfig = loadMcpConfig({ file: options.mcpConfig });
  const storeRoot = resolve(options.store);
  const redis = await connectRedis(url, { role: "worker", name: "meshflow:worker" });
  let pool: InstanceType<typeof mcp.ClientPool> | undefined;
  let executor: QueueExecutor | undefined;
  let plane: ToolPlane | undefined;
  try {
    await assertNoEviction(redis, url);
    pool = new mcp.ClientPool(mcpConfig.servers, { stderrDir: join(storeRoot, "logs") });
    const guard = new mcp.Guard(
      options.callsPerMinute > 0 ? { callsPerMinute: options.callsPerMinute } : { enabled: false },
    );
    const chain = mcp.createToolChain({ pool, guard, metrics: new mcp.MetricsCollector() });
    let runs: import("@meshflow/queue").RunJobProcessor | undefined;
    if (queues.includes("runs")) {
      const runtime = await import("@meshflow/runtime");
      const { createRunJobProcessor, sweepQueuedCopies } = await import("../queue/runJobProcessor.js");
      // PRD copies a killed worker left in the store (its runs go to another worker, with a copy of its own).
      sweepQueuedCopies(storeRoot);
      const agents = agentPaths(options.agents);
      const loaded = await runtime.loadSpecialists(agents.paths, { optional: agents.optional });
      const skillsDir = resolveSkillsDir(options.skills);
      executor = await QueueExecutor.open({ redis, settings });
      const queueExecutor = executor;
      plane = await runtime.createToolPlane({
        mcpConfig,
        ...(skillsDir ? { skillsDir } : {}),
        cacheFile: join(storeRoot, "cache", "classifications.json"),
        clientPool: pool,
        guard,
        executor: () => queueExecutor,
      });
      runs = createRunJobProcessor({
        routing: loadRoutingTable({ overrideFile: options.routing }),
        mcpConfig,
        specialists: new Map([...loaded].map(([name, l]) => [name, l.specialist])),
        agents: agents.paths,
        skillsDir,
        plane,
        files: new runtime.FileRunStore(storeRoot),
        workdir: resolve(options.workdir),
        redis,
        settings,
        models: catalogsByModel(options),
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
      lockDurationMs: options.lockDuration,
      stalledIntervalMs: options.stalledInterval,
      maxStalledCount: options.maxStalled,
      ...(options.name ? { name: options.name } : {}),
      onEvent: (event) => output.err(`flow worker: ${describe(event)}`),
    });
    output.err(
      `flow worker ${worker.name}: processing ${queues.join(" and ")} on ${redactRedisUrl(url)} ` +
        `(prefix ${settings.prefix}); SIGTERM drains and exits`,
    );
    const signal = await untilSignalled(output);
    output.err(
      `flow worker ${worker.name}: ${signal}: draining (calls in flight finish, active runs go back to the queue)`,
    );
    await Promise.all([worker.drain(), executor?.close()]);
    output.err(`flow worker ${worker.name}: drained`);
    return EXIT.ok;
  } finally {
    await plane?.close();
    await executor?.close();
    await pool?.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}
