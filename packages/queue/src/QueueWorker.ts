import { hostname } from "node:os";
import { type ErrorCode, toMeshflowError } from "@meshflow/core";
import type { DescribeTool, ToolHandler } from "@meshflow/mcp";
import type { Job, QueueEvents, Worker } from "bullmq";
import { CallProcessor } from "./internal/CallProcessor.js";
import { ConnectionWatch } from "./internal/ConnectionWatch.js";
import { RedisAdapter, streamIdNow } from "./internal/RedisAdapter.js";
import { RedisKeys } from "./internal/RedisKeys.js";
import type { JobTracing } from "./JobTracing.js";
import {
  bullPrefix,
  CALLS_QUEUE,
  type QueueName,
  type QueueSettings,
  queueSettings,
  RUNS_QUEUE,
} from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";
import { type QueuedRunCounts, RunBoard } from "./RunBoard.js";
import {
  PRD_JOB,
  RUN_JOB,
  type RunJobData,
  RunJobDataSchema,
  type RunJobOutcome,
  type RunJobProcessor,
  RunParentDataSchema,
  STORY_JOB,
} from "./runJob.js";

/** Options of {@link QueueWorker.start}. */
export interface QueueWorkerOptions {
  /** A connected client with `maxRetriesPerRequest: null` (`connectRedis(url, { role: "worker" })`). */
  redis: RedisClient;
  settings?: Partial<QueueSettings>;
  /** Which queues to process (default both). */
  queues?: readonly QueueName[];
  /** Tool calls run at once (default 16). */
  concurrency?: number;
  /** Run jobs run at once (default 4). */
  runConcurrency?: number;
  /** The middleware chain over this worker's MCP client pool (required for the calls queue). */
  chain?: ToolHandler;
  /** Descriptors (annotations) of tools (required for the calls queue). */
  describe?: DescribeTool;
  /** Runs a queued PRD or story (required for the runs queue). */
  runs?: RunJobProcessor;
  /** How long a job's lock lasts without renewal; a dead worker's jobs return to the queue after it (default 30 s). */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose worker died (default 30 s). */
  stalledIntervalMs?: number;
  /** A job whose worker died more often than this fails (default 2). */
  maxStalledCount?: number;
  /** Runs each tool-call job in a span that continues the queuing run's trace (see `@meshflow/telemetry`). */
  tracing?: Pick<JobTracing, "callJob">;
  /** Shown on jobs and in Bull Board (default `<host>:<pid>`). */
  name?: string;
  onEvent?: (event: WorkerEvent) => void;
}

/** What a worker reports while it runs (for its log). */
export type WorkerEvent =
  | { type: "run.started"; runId: string; job: string; attempt: number }
  | { type: "run.finished"; runId: string; job: string; status: string }
  | { type: "run.requeued"; runId: string; job: string; reason: string }
  | { type: "run.failed"; runId: string; job: string; reason: string }
  | { type: "job.stalled"; queue: QueueName; jobId: string }
  /** Redis stopped answering (once per outage; the clients reconnect with capped, jittered backoff). */
  | { type: "redis.down"; message: string }
  /** Redis answers again after an outage of `downMs`. */
  | { type: "redis.up"; downMs: number }
  | { type: "error"; queue: QueueName; message: string };

/** Failures after which a run job is tried again later (the environment may recover). */
const RETRY_RUN: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "server_unreachable",
  "server_crashed",
  "connect_timeout",
  "redis_unavailable",
]);

/** How long a run that waits for approvals stays delayed before a worker looks at its decisions again. */
const APPROVAL_RECHECK_MS = 1_000;

const emptyCounts = (): QueuedRunCounts => ({ passed: 0, failed: 0, blocked: 0, skipped: 0 });

/** How long a forced stop waits for BullMQ to drop its connections. */
const FORCE_CLOSE_MS = 500;

/** The failed reason of a run job whose work failed: its counts and the first story that did not pass. */
function outcomeReason(outcome: RunJobOutcome): string {
  const { passed, failed, blocked, skipped } = outcome.counts;
  const first = outcome.stories.find((s) => s.status === "failed" || s.status === "blocked");
  const why = first ? `; ${first.id} ${first.status}: ${first.summary.split("\n")[0]}` : "";
  return `run failed: ${passed} passed, ${failed} failed, ${blocked} blocked, ${skipped} skipped${why}`;
}

/** A worker's name when `--name` is not given: `<host>:<pid>`. */
export function defaultWorkerName(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * A `flow worker`'s queue side: BullMQ workers for tool-call jobs (run through the middleware chain,
 * journaled and fenced in Redis) and run jobs (handed to a {@link RunJobProcessor}). `drain()` stops
 * taking jobs, lets calls in flight finish, stops active runs cleanly and gives them back to the
 * queue for another worker; nothing is left to stall.
 */
export class QueueWorker {
  readonly name: string;
  readonly settings: QueueSettings;
  readonly #workers: Worker[] = [];
  readonly #runEvents: QueueEvents | undefined;
  readonly #board: RunBoard;
  readonly #runAborts = new Set<AbortController>();
  readonly #options: QueueWorkerOptions;
  #draining: Promise<void> | undefined;
  /** Why this worker takes no new jobs (its guard locked), once it paused. */
  #paused: string | undefined;

  private constructor(options: QueueWorkerOptions, settings: QueueSettings, name: string, runEvents?: QueueEvents) {
    this.#options = options;
    this.settings = settings;
    this.name = name;
    this.#board = new RunBoard(options.redis, settings);
    this.#runEvents = runEvents;
  }

  /** Starts processing the configured queues; resolves once the workers are connected. */
  static async start(options: QueueWorkerOptions): Promise<QueueWorker> {
    const settings = queueSettings(options.settings, options.redis.isCluster);
    const queues = options.queues ?? [RUNS_QUEUE, CALLS_QUEUE];
    const name = options.name ?? defaultWorkerName();
    const { QueueEvents, Worker } = await import("bullmq");
    const prefix = bullPrefix(settings);
    const common = {
      connection: options.redis,
      prefix,
      name,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: options.maxStalledCount ?? 2,
    };
    const runEvents = queues.includes(RUNS_QUEUE)
      ? new QueueEvents(RUNS_QUEUE, {
          connection: options.redis,
          prefix,
          lastEventId: await streamIdNow(options.redis),
        })
      : undefined;
    const worker = new QueueWorker(options, settings, name, runEvents);
    // Every client retries on its own while Redis is away: their errors make one line per state change.
    const watch = new ConnectionWatch(options.redis, (change) =>
      options.onEvent?.(
        change.state === "down"
          ? { type: "redis.down", message: change.message }
          : { type: "redis.up", downMs: change.downMs },
      ),
    );
    const report = (queue: QueueName) => (error: Error) => {
      if (!watch.error(error)) options.onEvent?.({ type: "error", queue, message: error.message });
    };

    if (queues.includes(CALLS_QUEUE)) {
      if (!options.chain || !options.describe) throw new Error("the calls queue needs a tool chain and describe()");
      const adapter = new RedisAdapter(options.redis, new RedisKeys(settings.prefix));
      let calls: Worker | undefined;
      const processor = new CallProcessor({
        adapter,
        settings,
        chain: options.chain,
        describe: options.describe,
        // BullMQ's lock key of a job (its value is the token of the worker holding it).
        lockKey: (jobId) => {
          if (!calls) throw new Error("the calls worker is not constructed yet");
          return `${calls.toKey(jobId)}:lock`;
        },
        worker: name,
        ...(options.tracing ? { tracing: options.tracing } : {}),
      });
      calls = new Worker(CALLS_QUEUE, (job, token) => processor.process(job, token), {
        ...common,
        concurrency: options.concurrency ?? 16,
      });
      calls.on("error", report(CALLS_QUEUE));
      calls.on("stalled", (jobId) => options.onEvent?.({ type: "job.stalled", queue: CALLS_QUEUE, jobId }));
      worker.#workers.push(calls);
    }
    if (queues.includes(RUNS_QUEUE)) {
      const runs = options.runs;
      if (!runs) throw new Error("the runs queue needs a run job processor");
      const runWorker = new Worker(RUNS_QUEUE, (job, token) => worker.#processRun(job, token, runs), {
        ...common,
        concurrency: options.runConcurrency ?? 4,
      });
      runWorker.on("error", report(RUNS_QUEUE));
      runWorker.on("stalled", (jobId) => options.onEvent?.({ type: "job.stalled", queue: RUNS_QUEUE, jobId }));
      runEvents?.on("failed", ({ jobId, failedReason }) => void worker.#runFailed(jobId, failedReason));
      runEvents?.on("error", report(RUNS_QUEUE));
      worker.#workers.push(runWorker);
    }
    await Promise.all([...worker.#workers.map((w) => w.waitUntilReady()), runEvents?.waitUntilReady()]);
    return worker;
  }

  async #processRun(job: Job, token: string | undefined, runs: RunJobProcessor): Promise<unknown> {
    if (job.name === RUN_JOB) return this.#concludePerStory(job);
    const { DelayedError, UnrecoverableError } = await import("bullmq");
    const parsed = RunJobDataSchema.safeParse(job.data);
    if (!parsed.success)
      throw new UnrecoverableError(`job ${job.id} is not a run: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const data = parsed.data;
    const giveBack = async (reason: string) => {
      await this.#board.requeued(data.runId, reason);
      this.#options.onEvent?.({ type: "run.requeued", runId: data.runId, job: String(job.id), reason });
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    };
    if (this.#draining) return giveBack(`worker ${this.name} is stopping`);
    if (this.#paused) return giveBack(`worker ${this.name} paused: ${this.#paused}`);
    const controller = new AbortController();
    this.#runAborts.add(controller);
    try {
      await this.#board.started(data.runId, this.name, { attempt: job.name === PRD_JOB });
      this.#options.onEvent?.({
        type: "run.started",
        runId: data.runId,
        job: String(job.id),
        attempt: job.attemptsStarted,
      });
      let outcome: RunJobOutcome;
      try {
        outcome = await runs({
          data,
          attempt: job.attemptsStarted,
          worker: this.name,
          signal: controller.signal,
          board: this.#board,
        });
      } catch (error) {
        const failure = toMeshflowError(error);
        const again = RETRY_RUN.has(failure.code) && job.attemptsMade + 1 < (job.opts.attempts ?? 1);
        if (again) {
          await this.#board.requeued(data.runId, `attempt ${job.attemptsStarted} could not run: ${failure.message}`);
          throw failure;
        }
        await this.#recordFailure(job, data, failure.message);
        throw new UnrecoverableError(failure.message);
      }
      if (outcome.status === "awaiting_approval") {
        // Nobody can go on with the run until a person decides: it waits in the queue (delayed), and
        // the worker that takes it up next looks at the decisions before it runs anything.
        const reason = `waiting for approval: ${outcome.waiting ?? "calls of the run"}; decide with: flow approve --redis <url> ${data.runId}`;
        await this.#board.requeued(data.runId, reason);
        this.#options.onEvent?.({ type: "run.requeued", runId: data.runId, job: String(job.id), reason });
        await job.moveToDelayed(Date.now() + APPROVAL_RECHECK_MS, token);
        throw new DelayedError();
      }
      if (outcome.status === "aborted")
        return await giveBack(
          this.#paused
            ? `worker ${this.name} paused: ${this.#paused}; another worker continues`
            : `worker ${this.name} stopped; another worker continues`,
        );
      if (job.name === PRD_JOB)
        await this.#board.finish(data.runId, { status: outcome.status, counts: outcome.counts });
      this.#options.onEvent?.({ type: "run.finished", runId: data.runId, job: String(job.id), status: outcome.status });
      // One meaning of a run's outcome everywhere: work that failed is a failed job (Bull Board, the
      // queue counts), as the run board says for `flow status --redis` and `flow enqueue --wait`.
      if (outcome.status === "failed") throw new UnrecoverableError(outcomeReason(outcome));
      return outcome;
    } finally {
      this.#runAborts.delete(controller);
    }
  }

  /** Records a run job that will not run (again): the run, or its story, failed with the reason. */
  async #recordFailure(job: Job, data: RunJobData, reason: string): Promise<void> {
    this.#options.onEvent?.({ type: "run.failed", runId: data.runId, job: String(job.id), reason });
    if (job.name === STORY_JOB) {
      for (const id of data.stories ?? [])
        await this.#board.story(data.runId, { id, status: "failed", summary: reason, steps: [], worker: this.name });
      return;
    }
    await this.#board.finish(data.runId, { status: "failed", error: reason });
  }

  /** A run job failed for good without its processor saying so (its worker died too often). */
  async #runFailed(jobId: string, reason: string): Promise<void> {
    try {
      const { Job } = await import("bullmq");
      const worker = this.#workers.find((w) => w.name === RUNS_QUEUE);
      const job = worker ? await Job.fromId(worker, jobId) : undefined;
      if (!job || job.name === RUN_JOB) return;
      const parsed = RunJobDataSchema.safeParse(job.data);
      if (!parsed.success) return;
      const run = await this.#board.get(parsed.data.runId);
      if (!run || run.status === "passed" || run.status === "failed") return;
      if (job.name === STORY_JOB) {
        const open = run.stories.filter(
          (s) => (parsed.data.stories ?? []).includes(s.id) && (s.status === "running" || s.status === "pending"),
        );
        if (!open.length) return;
      }
      await this.#recordFailure(job, parsed.data, reason);
    } catch (error) {
      this.#options.onEvent?.({ type: "error", queue: RUNS_QUEUE, message: toMeshflowError(error).message });
    }
  }

  /** The parent of a per-story run: every story job has ended (passed, failed or set aside). */
  async #concludePerStory(job: Job): Promise<RunJobOutcome> {
    const data = RunParentDataSchema.parse(job.data);
    const failures = await job.getIgnoredChildrenFailures();
    for (const [key, reason] of Object.entries(failures)) {
      // Child keys are `<prefix>:runs:<runId>.<n>`; <n> is the story's place in data.stories.
      const n = Number(key.slice(key.lastIndexOf(".") + 1));
      const storyId = data.stories[n - 1];
      const run = await this.#board.get(data.runId);
      const report = run?.stories.find((s) => s.id === storyId);
      if (storyId && (!report || report.status === "running" || report.status === "pending"))
        await this.#board.story(data.runId, { id: storyId, status: "failed", summary: reason, steps: [] });
    }
    const run = await this.#board.get(data.runId);
    const counts = emptyCounts();
    for (const story of run?.stories ?? []) {
      if (story.status === "passed") counts.passed++;
      else if (story.status === "blocked") counts.blocked++;
      else if (story.status === "skipped") counts.skipped++;
      else counts.failed++;
    }
    const status = counts.failed + counts.blocked === 0 ? "passed" : "failed";
    await this.#board.finish(data.runId, { status, counts });
    this.#options.onEvent?.({ type: "run.finished", runId: data.runId, job: String(job.id), status });
    const outcome: RunJobOutcome = { status, counts, stories: run?.stories ?? [] };
    if (status === "failed") {
      const { UnrecoverableError } = await import("bullmq");
      throw new UnrecoverableError(outcomeReason(outcome));
    }
    return outcome;
  }

  /**
   * Stops taking jobs because the worker's guard locked (`reason`: what locked it): its calls in flight
   * finish, its active runs stop cleanly and go back to the queue, paused (no story fails because of
   * the lock), for a worker whose guard is not locked. Only a restart takes jobs again.
   */
  async pause(reason: string): Promise<void> {
    if (this.#paused) return;
    this.#paused = reason;
    for (const controller of this.#runAborts) controller.abort();
    await Promise.all(this.#workers.map((w) => w.pause(true)));
  }

  /** Jobs this worker is running now. */
  get active(): number {
    return this.#runAborts.size;
  }

  /**
   * Stops taking jobs; active tool calls finish and are journaled; active runs stop cleanly (their
   * calls in flight finish) and go back to the queue, where another worker continues them. With
   * `timeoutMs`, stops at that deadline whatever is left (Redis unreachable, a call that does not end):
   * the connections are closed at once and what could not be handed back is retried by BullMQ's stall
   * handling, as after a kill. Resolves to true when everything drained in time.
   */
  async drain(options: { timeoutMs?: number } = {}): Promise<boolean> {
    this.#draining ??= (async () => {
      for (const controller of this.#runAborts) controller.abort();
      await Promise.all(this.#workers.map((w) => w.close()));
      await this.#runEvents?.close();
    })();
    if (options.timeoutMs === undefined) {
      await this.#draining;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), options.timeoutMs);
    });
    const drained = await Promise.race([this.#draining.then(() => true as const), expired]);
    clearTimeout(timer);
    if (!drained) {
      // Force: connections are dropped without waiting for a Redis that may never answer.
      this.#draining.catch(() => {});
      const forced = Promise.allSettled([...this.#workers.map((w) => w.close(true)), this.#runEvents?.close()]);
      await Promise.race([forced, new Promise((resolve) => setTimeout(resolve, FORCE_CLOSE_MS).unref())]);
    }
    return drained;
  }
}
