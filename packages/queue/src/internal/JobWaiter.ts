import type { ErrorCode, ToolResult } from "@meshflow/core";
import { refusal } from "@meshflow/mcp";
import type { Queue, QueueEvents } from "bullmq";
import type { CallJobData } from "../callJob.js";
import { isToolResult, parseEntry } from "./journalEntry.js";
import type { RedisAdapter } from "./RedisAdapter.js";

interface Waiting {
  data: CallJobData;
  /** When Redis was last asked about this call (or when it was submitted). */
  checked: number;
  resolvers: Array<(result: ToolResult) => void>;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Set while this process removes the job, so its own `removed` event is not mistaken for someone else's. */
  withdrawing: boolean;
}

/** Calls asked about per sweep: a sweep stays cheap however many calls wait. */
const SWEEP_BATCH = 100;

/** Settings of a {@link JobWaiter}. */
export interface JobWaiterOptions {
  /** A call no worker has taken within this is withdrawn (`call_timeout`, never run). */
  queueWaitMs: number;
  /** Calls waiting longer than this are checked against Redis now and then (a missed event, a lost job). */
  sweepMs: number;
  /** Adds a call's job again (same id and options) when it vanished from Redis. */
  requeue(jobId: string, data: CallJobData): Promise<unknown>;
}

/**
 * The calls a {@link QueueExecutor} waits for, by job id, answered from the queue's event stream
 * (one listener for all calls rather than one per call). Events can be missed (a Redis restart that
 * lost its last writes, a trimmed stream): a periodic sweep asks Redis about calls that waited long,
 * re-queues a job that vanished (the worker's journal keeps it from running twice) and settles one
 * that finished unnoticed.
 */
export class JobWaiter {
  readonly #pending = new Map<string, Waiting>();
  readonly #queue: Queue;
  readonly #adapter: RedisAdapter;
  readonly #options: JobWaiterOptions;
  readonly #sweeper: NodeJS.Timeout;
  #idle: Array<() => void> = [];
  #sweeping = false;

  constructor(queue: Queue, events: QueueEvents, adapter: RedisAdapter, options: JobWaiterOptions) {
    this.#queue = queue;
    this.#adapter = adapter;
    this.#options = options;
    events.on("completed", ({ jobId, returnvalue }) => {
      if (!this.#pending.has(jobId)) return;
      this.settle(
        jobId,
        isToolResult(returnvalue)
          ? returnvalue
          : refusal("tool_error", `the worker answered ${jobId} with something that is not a tool result`),
      );
    });
    events.on("failed", ({ jobId, failedReason }) => {
      if (this.#pending.has(jobId)) void this.#failed(jobId, failedReason);
    });
    events.on("duplicated", ({ jobId }) => {
      // The key was submitted before: its job may have finished already, and then no event follows.
      if (this.#pending.has(jobId)) void this.#check(jobId);
    });
    events.on("removed", ({ jobId }) => {
      const waiting = this.#pending.get(jobId);
      if (waiting && !waiting.withdrawing)
        this.settle(
          jobId,
          refusal("aborted", `${waiting.data.tool} (${waiting.data.key}): its job was removed from the queue`),
        );
    });
    this.#sweeper = setInterval(() => void this.#sweep(), options.sweepMs);
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Registers a wait for `jobId` (before the job is added) and resolves with its result. */
  wait(jobId: string, data: CallJobData, signal: AbortSignal | undefined): Promise<ToolResult> {
    return new Promise((resolve) => {
      const existing = this.#pending.get(jobId);
      if (existing) {
        existing.resolvers.push(resolve);
        return;
      }
      const timer = setTimeout(
        () =>
          void this.#withdraw(
            jobId,
            "call_timeout",
            `no worker started ${data.tool} (${data.key}) within ${this.#options.queueWaitMs} ms; it was withdrawn and not run`,
          ),
        this.#options.queueWaitMs,
      );
      timer.unref();
      const waiting: Waiting = { data, checked: Date.now(), resolvers: [resolve], timer, withdrawing: false };
      if (signal) {
        waiting.signal = signal;
        waiting.onAbort = () =>
          void this.#withdraw(jobId, "aborted", `${data.tool} (${data.key}) was aborted before a worker started it`);
        signal.addEventListener("abort", waiting.onAbort, { once: true });
      }
      this.#pending.set(jobId, waiting);
    });
  }

  /** Resolves every wait for `jobId` with `result`. */
  settle(jobId: string, result: ToolResult): void {
    const waiting = this.#pending.get(jobId);
    if (!waiting) return;
    this.#pending.delete(jobId);
    clearTimeout(waiting.timer);
    if (waiting.onAbort) waiting.signal?.removeEventListener("abort", waiting.onAbort);
    for (const resolve of waiting.resolvers) resolve(result);
    if (!this.#pending.size) {
      const idle = this.#idle;
      this.#idle = [];
      for (const done of idle) done();
    }
  }

  /** Resolves when no call is pending. */
  idle(): Promise<void> {
    return this.#pending.size ? new Promise((resolve) => this.#idle.push(resolve)) : Promise.resolve();
  }

  /** Withdraws every call no worker has taken yet (`aborted`); calls being run are left to finish. */
  async withdrawWaiting(reason: string): Promise<void> {
    await Promise.all(
      [...this.#pending.entries()].map(([jobId, w]) =>
        this.#withdraw(jobId, "aborted", `${w.data.tool} (${w.data.key}) was not run: ${reason}`),
      ),
    );
  }

  stop(): void {
    clearInterval(this.#sweeper);
  }

  /**
   * Removes a job that no worker holds (BullMQ refuses to remove a locked one) and settles it with
   * `code`. A job that finished meanwhile is settled with its journaled result instead.
   */
  async #withdraw(jobId: string, code: ErrorCode, message: string): Promise<void> {
    const waiting = this.#pending.get(jobId);
    if (!waiting || waiting.withdrawing) return;
    waiting.withdrawing = true;
    let removed = 0;
    try {
      removed = await this.#queue.remove(jobId, { removeChildren: false });
    } catch {
      removed = 0;
    }
    if (removed !== 1) {
      // A worker holds it (or Redis is away): it finishes on its own, under the worker's time limit.
      waiting.withdrawing = false;
      return;
    }
    const journaled = await this.#journaled(waiting.data);
    this.settle(jobId, journaled ?? refusal(code, message));
  }

  async #journaled(data: CallJobData): Promise<ToolResult | undefined> {
    try {
      const entry = parseEntry(await this.#adapter.journalEntry(data.journal, data.key));
      return entry?.state === "finished" && entry.result ? entry.result : undefined;
    } catch {
      return undefined;
    }
  }

  async #failed(jobId: string, reason: string): Promise<void> {
    const waiting = this.#pending.get(jobId);
    if (!waiting) return;
    const journaled = await this.#journaled(waiting.data);
    this.settle(
      jobId,
      journaled ??
        refusal(
          "outcome_unknown",
          `${waiting.data.tool} (${waiting.data.key}): its job failed (${reason}); whether the tool ran is unknown`,
        ),
    );
  }

  /** Asks Redis about one job: settles it when it finished, re-queues it when it vanished. */
  async #check(jobId: string): Promise<void> {
    const waiting = this.#pending.get(jobId);
    if (!waiting || waiting.withdrawing) return;
    waiting.checked = Date.now();
    try {
      const job = await this.#queue.getJob(jobId);
      if (!this.#pending.has(jobId)) return;
      if (!job) {
        // Lost (a Redis restart without its last writes) or removed after finishing unnoticed: add
        // it again; if it ran, the worker finds its result in the journal and does not run it again.
        await this.#options.requeue(jobId, waiting.data);
        return;
      }
      const state = await job.getState();
      if (state === "completed" && isToolResult(job.returnvalue)) this.settle(jobId, job.returnvalue);
      else if (state === "failed") await this.#failed(jobId, job.failedReason);
    } catch {
      // Redis is away: the next sweep asks again.
    }
  }

  async #sweep(): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const old = Date.now() - this.#options.sweepMs;
      const due: string[] = [];
      // Map order is submission order: the longest-waiting calls come first; a few per sweep.
      for (const [jobId, w] of this.#pending) {
        if (w.checked < old && !w.withdrawing) due.push(jobId);
        if (due.length >= SWEEP_BATCH) break;
      }
      for (const jobId of due) await this.#check(jobId);
    } finally {
      this.#sweeping = false;
    }
  }
}
