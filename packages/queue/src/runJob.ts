import { z } from "zod";
import type { QueuedRunCounts, QueuedStoryReport, RunBoard } from "./RunBoard.js";

/** Job name of a run of a whole PRD (every selected story in one job). */
export const PRD_JOB = "prd";
/** Job name of one story of a per-story run (a child of a {@link RUN_JOB}). */
export const STORY_JOB = "story";
/** Job name of the parent of a per-story run: it concludes the run once every story job has ended. */
export const RUN_JOB = "run";

/** What a `prd` or `story` job carries: the PRD content itself, so any worker can run it. */
export const RunJobDataSchema = z.object({
  /** The queued run's id (`flow status --redis <runId>`). */
  runId: z.string().min(1),
  /** The id the runtime runs under and journals calls by: the run id, or `<runId>.<n>` for a story job. */
  executionId: z.string().min(1),
  /** The PRD file as the enqueuer named it (for messages). */
  file: z.string(),
  /**
   * The PRD's path relative to the enqueuer's working directory (empty when outside it): a worker puts
   * the PRD at the same place under its own working directory, so `verify` commands find the project.
   */
  placement: z.string(),
  prdText: z.string(),
  /** Only these stories (run order is the PRD's); all when absent. */
  stories: z.array(z.string()).optional(),
  failFast: z.boolean(),
  /** `flow enqueue --model`: the model for every story (else the worker's `--model`, the PRD's, `FLOW_MODEL`). */
  model: z.string().optional(),
  /** `flow enqueue --harness`: the coding agent that works every story's steps (over the workers' `--harness`). */
  harness: z.string().optional(),
  /** `flow enqueue --parallel`: stories at most in progress at once (the runtime's `parallel`); absent: one. */
  parallel: z.number().int().min(1).optional(),
  /**
   * `flow enqueue --approve`/`--approvals`: the approvals policy of the run (validated by the runtime
   * where it runs); its pending approvals are kept in Redis.
   */
  approvals: z.record(z.string(), z.unknown()).optional(),
  /** W3C `traceparent` of the span that queued the run (`flow enqueue`), when traces are exported. */
  traceparent: z.string().optional(),
});

/** What a `prd` or `story` job carries. */
export type RunJobData = z.infer<typeof RunJobDataSchema>;

/** What the parent job of a per-story run carries. */
export const RunParentDataSchema = z.object({
  runId: z.string().min(1),
  stories: z.array(z.string()),
});

/** What a run job processor is given. */
export interface RunJobContext {
  data: RunJobData;
  /** 1 for the first start of the job; more after a worker died or gave it back. */
  attempt: number;
  /** The worker's name. */
  worker: string;
  /** Aborted when the worker drains: stop cleanly (calls in flight finish); the job goes back to the queue. */
  signal: AbortSignal;
  board: RunBoard;
}

/**
 * How a run job ended. `aborted`: it stopped because the worker drains; another worker continues it.
 * `awaiting_approval`: every story in flight waits for a person's approval (kept in Redis); the job
 * waits in the queue and a worker takes it up again once the calls are decided.
 */
export interface RunJobOutcome {
  status: "passed" | "failed" | "aborted" | "awaiting_approval";
  /** With `awaiting_approval`: what waits, for the run board. */
  waiting?: string;
  counts: QueuedRunCounts;
  stories: QueuedStoryReport[];
}

/**
 * Runs a queued PRD (or one story of it) on a worker. `@meshflow/queue` does not run PRDs itself:
 * the runtime sits above it, so the worker's owner (the `flow worker` command) supplies this. Throwing
 * means the run could not run at all (invalid for this worker's environment, a server unreachable).
 */
export type RunJobProcessor = (ctx: RunJobContext) => Promise<RunJobOutcome>;
