import type { ToolCall, ToolResult } from "@meshflow/core";
import type { Executor } from "@meshflow/mcp";
import { argsDigest, type CallContext, refusal } from "@meshflow/mcp";
import type { JobsOptions, Queue, QueueEvents } from "bullmq";
import { CALL_JOB, type CallJobData, callJobId } from "./callJob.js";
import { JobWaiter } from "./internal/JobWaiter.js";
import { RedisAdapter, streamIdNow } from "./internal/RedisAdapter.js";
import { RedisKeys } from "./internal/RedisKeys.js";
import type { JobTracing } from "./JobTracing.js";
import { bullPrefix, CALLS_QUEUE, type QueueSettings, queueSettings } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";

/** Default time limit of one MCP call on a worker (the client pool's default). */
export const DEFAULT_QUEUE_CALL_TIMEOUT_MS = 60_000;
/** Default time a call may wait in the queue for a worker to take it. */
export const DEFAULT_QUEUE_WAIT_MS = 5 * 60_000;

/** Options of {@link QueueExecutor.open}. */
export interface QueueExecutorOptions {
  /** A connected client (see `connectRedis`); the caller closes it after the executor. */
  redis: RedisClient;
  settings?: Partial<QueueSettings>;
  /** Time limit of the MCP call on the worker, unless the call's context sets one (default 60 s). */
  callTimeoutMs?: number;
  /** How long a call may wait for a worker to take it; then it is withdrawn, not run (default 5 min). */
  queueWaitMs?: number;
  /** Attempts of an idempotent or read-only tool whose call failed below the tool (default 3). */
  attempts?: number;
  /** First retry delay in ms, doubled each time (default 500). */
  backoffMs?: number;
  /** The journal a call is recorded in (default: its run id, else the first segment of its key). */
  journalOf?: (call: ToolCall) => string;
  /** How often calls that have waited long are checked against Redis (default 5 s). */
  sweepMs?: number;
  /** Puts the trace context of each call in its job (see `@meshflow/telemetry`). */
  tracing?: Pick<JobTracing, "traceparentOf">;
}

const defaultJournal = (call: ToolCall): string => call.runId ?? call.key.split("/")[0] ?? "_";

/**
 * Runs tool calls as BullMQ jobs on `flow worker` processes: one job per call, its id derived from
 * the call's idempotency key, its result back through job completion (`QueueEvents`). Workers run
 * the same middleware chain over their own MCP client pool and journal each call in Redis, so a
 * call is never executed twice for one key; idempotent and read-only tools are retried with
 * backoff, any other call whose attempt died comes back as `outcome_unknown`. Never throws for a
 * tool-level problem.
 *
 * @example
 * const redis = await connectRedis(url, { role: "worker" });
 * const executor = await QueueExecutor.open({ redis });
 * const result = await executor.submit({ key: "run1/US-001/step1/1", tool: "memory__read_graph", args: {} }, {});
 * await executor.close();
 */
export class QueueExecutor implements Executor {
  readonly settings: QueueSettings;
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  readonly #waiter: JobWaiter;
  readonly #journalOf: (call: ToolCall) => string;
  readonly #callTimeoutMs: number;
  readonly #jobOptions: JobsOptions;
  readonly #tracing: Pick<JobTracing, "traceparentOf"> | undefined;
  #closed = false;

  private constructor(
    queue: Queue,
    events: QueueEvents,
    adapter: RedisAdapter,
    settings: QueueSettings,
    options: QueueExecutorOptions,
  ) {
    this.settings = settings;
    this.#queue = queue;
    this.#events = events;
    this.#journalOf = options.journalOf ?? defaultJournal;
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_QUEUE_CALL_TIMEOUT_MS;
    this.#tracing = options.tracing;
    this.#jobOptions = {
      attempts: options.attempts ?? 3,
      backoff: { type: "exponential", delay: options.backoffMs ?? 500 },
      removeOnComplete: settings.callsCompleted,
      removeOnFail: settings.callsFailed,
    };
    this.#waiter = new JobWaiter(queue, events, adapter, {
      queueWaitMs: options.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS,
      sweepMs: options.sweepMs ?? 5_000,
      requeue: (jobId, data) => queue.add(CALL_JOB, data, { ...this.#jobOptions, jobId }),
    });
  }

  /** Connects the executor's queue and event stream to Redis. */
  static async open(options: QueueExecutorOptions): Promise<QueueExecutor> {
    const settings = queueSettings(options.settings, options.redis.isCluster);
    const { Queue, QueueEvents } = await import("bullmq");
    const prefix = bullPrefix(settings);
    // Read before anything is constructed: a Queue whose Redis goes away while nothing listens to its
    // errors would print each of them.
    const lastEventId = await streamIdNow(options.redis);
    const queue = new Queue(CALLS_QUEUE, { connection: options.redis, prefix });
    queue.on("error", () => {});
    // QueueEvents blocks on XREAD: bullmq gives it a duplicate of the connection, and closes it. It
    // reads from "now", not from `$`, so a call finished before its first read is not missed.
    const events = new QueueEvents(CALLS_QUEUE, { connection: options.redis, prefix, lastEventId });
    events.on("error", () => {});
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    const adapter = new RedisAdapter(options.redis, new RedisKeys(settings.prefix));
    return new QueueExecutor(queue, events, adapter, settings, options);
  }

  async submit(call: ToolCall, ctx: CallContext): Promise<ToolResult> {
    if (this.#closed) return refusal("aborted", `the queue executor is closed; ${call.tool} (${call.key}) was not run`);
    if (ctx.signal?.aborted) return refusal("aborted", `${call.tool} (${call.key}) was aborted before it was queued`);
    const runId = ctx.runId ?? call.runId;
    const storyId = ctx.storyId ?? call.storyId;
    const step = ctx.step ?? call.step;
    const traceparent = this.#tracing?.traceparentOf(call);
    const data: CallJobData = {
      key: call.key,
      tool: call.tool,
      args: call.args,
      argsDigest: `sha256:${argsDigest(call.args)}`,
      journal: this.#journalOf(call),
      timeoutMs: ctx.timeoutMs ?? this.#callTimeoutMs,
      ...(runId !== undefined ? { runId } : {}),
      ...(storyId !== undefined ? { storyId } : {}),
      ...(step !== undefined ? { step } : {}),
      ...(ctx.repertoire ? { repertoire: [...ctx.repertoire] } : {}),
      ...(ctx.annotationAware !== undefined ? { annotationAware: ctx.annotationAware } : {}),
      ...(ctx.confirmationToken !== undefined ? { confirmationToken: ctx.confirmationToken } : {}),
      ...(traceparent ? { traceparent } : {}),
    };
    const jobId = callJobId(call.key);
    // Listen before adding: a fast worker may finish the job before `add` returns.
    const result = this.#waiter.wait(jobId, data, ctx.signal);
    try {
      await this.#queue.add(CALL_JOB, data, { ...this.#jobOptions, jobId });
    } catch (error) {
      this.#waiter.settle(
        jobId,
        refusal(
          "redis_unavailable",
          `${call.tool} (${call.key}) could not be queued: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
    return result;
  }

  /** Calls submitted and not yet answered. */
  get pending(): number {
    return this.#waiter.size;
  }

  /**
   * Refuses new calls, withdraws the calls no worker has taken yet (they resolve as `aborted`, never
   * run), waits for the calls workers are running, then closes the connections it opened.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#waiter.withdrawWaiting("the queue executor is closing");
    await this.#waiter.idle();
    this.#waiter.stop();
    await this.#queue.close();
    await this.#events.close();
  }
}
