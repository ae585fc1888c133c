import { randomBytes } from "node:crypto";
import { digestOf, MeshflowError } from "@meshflow/core";
import type { FlowProducer, JobType, Queue } from "bullmq";
import { bullPrefix, CALLS_QUEUE, type QueueSettings, queueSettings, RUNS_QUEUE } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";
import { RunBoard } from "./RunBoard.js";
import { PRD_JOB, RUN_JOB, type RunJobData, STORY_JOB } from "./runJob.js";

/** One PRD to enqueue. */
export interface EnqueueRequest {
  /** The PRD file as the user named it (for messages). */
  file: string;
  /** Its path relative to the working directory, or "" when outside (see `RunJobData.placement`). */
  placement: string;
  /** The file's text: the run carries it, so a worker anywhere can run it. */
  prdText: string;
  /** The stories this run handles, in run order (`passes: true` ones excluded). */
  storyIds: readonly string[];
  /** Stories reported as skipped (`passes: true`). */
  skipped?: readonly string[];
  /** Digest of the PRD's work when enqueued (the write-back checks the file still has it). */
  workDigest: string;
  /** One job per story under a parent job, instead of one job for the PRD. */
  perStory?: boolean;
  /** `--story` selection, passed to the runtime. */
  stories?: readonly string[];
  failFast?: boolean;
  /** `flow enqueue --model`: the model for every story of the run (over the worker's defaults). */
  model?: string;
  /** `flow enqueue --harness`: the coding agent that works its steps (over the worker's defaults). */
  harness?: string;
  /** `flow enqueue --parallel`: stories at most in progress at once on the worker (whole-PRD runs). */
  parallel?: number;
  /** W3C `traceparent` of the enqueuer's span: the run's spans on a worker become its children. */
  traceparent?: string;
  /** `flow enqueue --approve`/`--approvals`: what waits for a person's approval (the runtime's policy). */
  approvals?: Record<string, unknown>;
}

/** What enqueuing did. */
export interface Enqueued {
  runId: string;
  file: string;
  /** True when the same content was already queued or running: no new run was made. */
  duplicate: boolean;
}

/** Job counts by state of one queue. */
export type QueueCounts = Record<string, number>;

/** Waiting, active, delayed or waiting-children: the job will still run. */
const LIVE: ReadonlySet<string> = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);
/** A registration younger than this may still be adding its job: never treated as stale. */
const REGISTRATION_GRACE_MS = 30_000;

/** A new queued run id: `q20250111-142233-3f9a2c` (sortable, letters, digits and `-`). */
export function newQueuedRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `q${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Digest of what makes two enqueues the same run: the PRD's content (not its formatting) and the run options. */
export function enqueueDigest(request: EnqueueRequest): string {
  let content: unknown;
  try {
    content = JSON.parse(request.prdText);
  } catch {
    content = request.prdText;
  }
  const key = {
    content,
    perStory: request.perStory === true,
    stories: request.stories ?? null,
    failFast: !!request.failFast,
    model: request.model ?? null,
    // Absent from older digests' keys: a run without a harness keeps the digest it always had.
    ...(request.harness ? { harness: request.harness } : {}),
    ...(request.parallel && request.parallel > 1 ? { parallel: request.parallel } : {}),
    ...(request.approvals ? { approvals: request.approvals } : {}),
  };
  return digestOf(key);
}

/**
 * The producer side of batch runs: puts PRDs on the runs queue (one job per PRD, or a parent job with
 * one child per story), each carrying the PRD's content. The same content enqueued while its run is
 * queued or running gives that run back instead of a second one.
 *
 * @example
 * const runs = await RunQueue.open({ redis });
 * const { runId, duplicate } = await runs.enqueue({ file: "prd.json", placement: "prd.json", prdText, storyIds, workDigest });
 * await runs.close();
 */
export class RunQueue {
  readonly board: RunBoard;
  readonly settings: QueueSettings;
  readonly #runs: Queue;
  readonly #calls: Queue;
  readonly #flows: FlowProducer;

  private constructor(settings: QueueSettings, board: RunBoard, runs: Queue, calls: Queue, flows: FlowProducer) {
    this.settings = settings;
    this.board = board;
    this.#runs = runs;
    this.#calls = calls;
    this.#flows = flows;
  }

  /** Opens the runs queue over a connected client (the caller closes the client after this). */
  static async open(options: { redis: RedisClient; settings?: Partial<QueueSettings> }): Promise<RunQueue> {
    const settings = queueSettings(options.settings, options.redis.isCluster);
    const { FlowProducer, Queue } = await import("bullmq");
    const prefix = bullPrefix(settings);
    const runs = new Queue(RUNS_QUEUE, { connection: options.redis, prefix });
    const calls = new Queue(CALLS_QUEUE, { connection: options.redis, prefix });
    const flows = new FlowProducer({ connection: options.redis, prefix });
    // Errors reach callers through the failing command; unlistened, they would be printed.
    runs.on("error", () => {});
    calls.on("error", () => {});
    flows.on("error", () => {});
    await Promise.all([runs.waitUntilReady(), calls.waitUntilReady(), flows.waitUntilReady()]);
    return new RunQueue(settings, new RunBoard(options.redis, settings), runs, calls, flows);
  }

  /** Enqueues one PRD run; a duplicate of a queued or running one gives that run's id. */
  async enqueue(request: EnqueueRequest): Promise<Enqueued> {
    const digest = enqueueDigest(request);
    const registration = {
      digest,
      workDigest: request.workDigest,
      file: request.file,
      mode: request.perStory ? ("per-story" as const) : ("prd" as const),
      storyIds: request.storyIds,
      skipped: request.skipped ?? [],
    };
    let runId = newQueuedRunId();
    let holder = await this.board.register({ ...registration, runId });
    if (holder !== runId) {
      if (await this.#live(holder)) return { runId: holder, file: request.file, duplicate: true };
      // The holder's run is gone (its worker died past every retry, or its enqueue never added a job).
      runId = newQueuedRunId();
      holder = await this.board.register({ ...registration, runId, replacing: holder });
      if (holder !== runId) return { runId: holder, file: request.file, duplicate: true };
    }
    try {
      await this.#add(runId, request);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      await this.board.finish(runId, { status: "failed", error: `could not be queued: ${message}` }).catch(() => {});
      throw new MeshflowError("redis_unavailable", `${request.file}: could not be queued: ${message}`, { cause });
    }
    return { runId, file: request.file, duplicate: false };
  }

  async #live(runId: string): Promise<boolean> {
    const state = await this.#runs.getJobState(runId);
    if (LIVE.has(state)) return true;
    const run = await this.board.get(runId);
    if (run && (run.status === "passed" || run.status === "failed")) return false;
    // No job (yet): a registration that is still adding it counts as live.
    const created = run ? Date.parse(run.createdAt) : Number.NaN;
    return state === "unknown" && Number.isFinite(created) && Date.now() - created < REGISTRATION_GRACE_MS;
  }

  async #add(runId: string, request: EnqueueRequest): Promise<void> {
    const s = this.settings;
    const base = {
      runId,
      file: request.file,
      placement: request.placement,
      prdText: request.prdText,
      failFast: request.failFast === true,
      ...(request.model ? { model: request.model } : {}),
      ...(request.harness ? { harness: request.harness } : {}),
      ...(request.parallel && request.parallel > 1 ? { parallel: request.parallel } : {}),
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
      ...(request.approvals ? { approvals: request.approvals } : {}),
    };
    const retry = { attempts: 3, backoff: { type: "exponential", delay: 2_000 } };
    const keep = { removeOnComplete: s.runsCompleted, removeOnFail: s.runsFailed };
    if (!request.perStory) {
      const data: RunJobData = {
        ...base,
        executionId: runId,
        ...(request.stories ? { stories: [...request.stories] } : {}),
      };
      await this.#runs.add(PRD_JOB, data, { jobId: runId, ...retry, ...keep });
      return;
    }
    const children = request.storyIds.map((storyId, index) => {
      const executionId = `${runId}.${index + 1}`;
      const data: RunJobData = { ...base, executionId, stories: [storyId] };
      return {
        name: STORY_JOB,
        queueName: RUNS_QUEUE,
        data,
        // A story job that fails for good is set aside, never left pending: the parent still
        // concludes the run, with that story failed.
        opts: { jobId: executionId, ignoreDependencyOnFailure: true, ...retry, ...keep },
      };
    });
    await this.#flows.add({
      name: RUN_JOB,
      queueName: RUNS_QUEUE,
      data: { runId, stories: [...request.storyIds] },
      opts: { jobId: runId, ...keep },
      children,
    });
  }

  /** Job counts by state of the runs and calls queues. */
  async counts(): Promise<{ runs: QueueCounts; calls: QueueCounts }> {
    const states: JobType[] = ["waiting", "active", "delayed", "waiting-children", "completed", "failed"];
    const [runs, calls] = await Promise.all([this.#runs.getJobCounts(...states), this.#calls.getJobCounts(...states)]);
    return { runs, calls };
  }

  async close(): Promise<void> {
    await Promise.all([this.#runs.close(), this.#calls.close(), this.#flows.close()]);
  }
}
