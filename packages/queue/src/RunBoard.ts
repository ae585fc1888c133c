import { z } from "zod";
import { RedisAdapter } from "./internal/RedisAdapter.js";
import { RedisKeys } from "./internal/RedisKeys.js";
import { type QueueSettings, queueSettings } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";

/** Tokens of model turns (a step's, a story's). */
const TokensSchema = z.object({ input: z.number(), output: z.number(), turns: z.number().int() });

/** One step of a queued story, as `flow status --redis` shows it. */
const QueuedStepSchema = z.object({
  step: z.number().int(),
  specialist: z.string(),
  status: z.enum(["passed", "failed", "blocked", "running"]),
  summary: z.string(),
  calls: z.number().int(),
  refusals: z.array(z.object({ tool: z.string(), code: z.string(), message: z.string() })),
  tokens: TokensSchema.optional(),
});

/** One story of a queued run: its outcome, steps and gate, and the PRD note for a passed story. */
export const QueuedStorySchema = z.object({
  id: z.string(),
  status: z.enum(["pending", "running", "awaiting_approval", "passed", "failed", "blocked", "skipped"]),
  summary: z.string(),
  steps: z.array(QueuedStepSchema),
  gate: z.object({ passed: z.boolean(), summary: z.string() }).optional(),
  /** For a passed story: the note the completion gate writes into the PRD. */
  note: z.string().optional(),
  /** The worker that ran it last. */
  worker: z.string().optional(),
  tokens: TokensSchema.optional(),
});

/** One story of a queued run. */
export type QueuedStoryReport = z.infer<typeof QueuedStorySchema>;

/** Where a queued run is: `queued` (waiting for a worker, or given back by one), `running`, or finished. */
export type QueuedRunStatus = "queued" | "running" | "passed" | "failed";

/** Story counts of a finished run. */
export interface QueuedRunCounts {
  passed: number;
  failed: number;
  blocked: number;
  skipped: number;
}

/** A queued run as Redis records it. */
export interface QueuedRun {
  runId: string;
  /** The PRD file as the enqueuer named it. */
  file: string;
  /** `prd`: one job runs every story; `per-story`: a parent job and one child job per story. */
  mode: "prd" | "per-story";
  status: QueuedRunStatus;
  /** Digest of the PRD's work (stories without `passes`/`notes`) when it was enqueued. */
  workDigest: string;
  /** Digest of the content and options a duplicate enqueue is recognised by. */
  digest: string;
  /** The stories in run order, with what is known of each. */
  stories: QueuedStoryReport[];
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** The worker that ran (or runs) it last. */
  worker?: string;
  /** How many times a worker started it. */
  attempts: number;
  counts?: QueuedRunCounts;
  /** Why a run could not run (or stopped). */
  error?: string;
}

/** What registering a run needs. */
export interface RunRegistration {
  runId: string;
  digest: string;
  workDigest: string;
  file: string;
  mode: QueuedRun["mode"];
  storyIds: readonly string[];
  /** Story ids reported as skipped from the start (`passes: true`). */
  skipped?: readonly string[];
  /** A run holding the digest that is known to be gone. */
  replacing?: string;
}

const iso = () => new Date().toISOString();

function json<T>(text: string | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * The record of queued runs in Redis: each run's status and its stories' reports, written by the
 * workers and read by `flow status --redis` and `flow enqueue --wait`. A finished run's keys expire
 * after `runTtlSeconds`.
 */
export class RunBoard {
  readonly settings: QueueSettings;
  readonly #adapter: RedisAdapter;

  constructor(redis: RedisClient, settings: Partial<QueueSettings> = {}) {
    this.settings = queueSettings(settings, redis.isCluster);
    this.#adapter = new RedisAdapter(redis, new RedisKeys(this.settings.prefix));
  }

  /** Registers a new run; returns the id of the run that holds the content (the new one unless a duplicate). */
  async register(input: RunRegistration): Promise<string> {
    const time = iso();
    const holder = await this.#adapter.enqueueRun({
      digest: input.digest,
      runId: input.runId,
      now: Date.now(),
      ...(input.replacing ? { replacing: input.replacing } : {}),
      record: {
        runId: input.runId,
        file: input.file,
        mode: input.mode,
        status: "queued",
        digest: input.digest,
        workDigest: input.workDigest,
        storyIds: JSON.stringify(input.storyIds),
        createdAt: time,
        updatedAt: time,
        attempts: 0,
      },
    });
    if (holder === input.runId)
      for (const id of input.skipped ?? [])
        await this.story(input.runId, { id, status: "skipped", summary: "passes is true", steps: [] });
    return holder;
  }

  /** The run holding a content digest (queued or running), if any. */
  holderOf(digest: string): Promise<string | null> {
    return this.#adapter.runOfDigest(digest);
  }

  /** A worker started (or resumed) the run; `attempt: false` for one story of a per-story run. */
  async started(runId: string, worker: string, options: { attempt?: boolean } = {}): Promise<void> {
    if (options.attempt !== false) await this.#adapter.incrementRun(runId, "attempts");
    const time = iso();
    await this.#adapter.updateRun(runId, { status: "running", worker, startedAt: time, updatedAt: time, error: "" });
  }

  /** A worker gave the run back to the queue (it stopped); another one continues it. */
  async requeued(runId: string, reason: string): Promise<void> {
    await this.#adapter.updateRun(runId, { status: "queued", error: reason, updatedAt: iso() });
  }

  /** Records a story's report. */
  async story(runId: string, report: QueuedStoryReport): Promise<void> {
    await this.#adapter.setStory(runId, report.id, JSON.stringify(report));
  }

  /** Records the run's end; the same content may be enqueued again, and its keys expire later. */
  async finish(
    runId: string,
    outcome: { status: "passed" | "failed"; counts?: QueuedRunCounts; error?: string },
  ): Promise<void> {
    const { record } = await this.#adapter.readRun(runId);
    const time = iso();
    await this.#adapter.finishRun({
      digest: record.digest ?? "",
      runId,
      keepSeconds: this.settings.runTtlSeconds,
      now: Date.now(),
      record: {
        status: outcome.status,
        finishedAt: time,
        updatedAt: time,
        ...(outcome.counts ? { counts: JSON.stringify(outcome.counts) } : {}),
        ...(outcome.error ? { error: outcome.error } : {}),
      },
    });
  }

  /** A run with its stories, or undefined when Redis has no such run. */
  async get(runId: string): Promise<QueuedRun | undefined> {
    const { record, stories } = await this.#adapter.readRun(runId);
    if (!record.runId) return undefined;
    const reports = new Map<string, QueuedStoryReport>();
    for (const [id, text] of Object.entries(stories)) {
      const parsed = QueuedStorySchema.safeParse(json<unknown>(text, undefined));
      if (parsed.success) reports.set(id, parsed.data);
    }
    const storyIds = json<string[]>(record.storyIds, []);
    const ordered = [...storyIds, ...[...reports.keys()].filter((id) => !storyIds.includes(id))];
    const counts = json<QueuedRunCounts | undefined>(record.counts, undefined);
    const run: QueuedRun = {
      runId: record.runId,
      file: record.file ?? "",
      mode: record.mode === "per-story" ? "per-story" : "prd",
      status: (["queued", "running", "passed", "failed"] as const).find((s) => s === record.status) ?? "queued",
      workDigest: record.workDigest ?? "",
      digest: record.digest ?? "",
      stories: ordered.map((id) => reports.get(id) ?? { id, status: "pending", summary: "", steps: [] }),
      createdAt: record.createdAt ?? "",
      updatedAt: record.updatedAt ?? "",
      attempts: Number(record.attempts ?? 0),
      ...(record.startedAt ? { startedAt: record.startedAt } : {}),
      ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
      ...(record.worker ? { worker: record.worker } : {}),
      ...(counts ? { counts } : {}),
      ...(record.error ? { error: record.error } : {}),
    };
    return run;
  }

  /** The newest runs, newest first (at most `limit`). */
  async list(limit = 50): Promise<QueuedRun[]> {
    const ids = await this.#adapter.recentRuns(limit);
    const runs = await Promise.all(ids.map((id) => this.get(id)));
    return runs.filter((r): r is QueuedRun => r !== undefined);
  }
}
