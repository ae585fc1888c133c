import { MeshflowError } from "@meshflow/core";
import {
  connectRedis,
  type QueueCounts,
  type QueuedRun,
  RunQueue,
  redactRedisUrl,
  redisFailure,
} from "@meshflow/queue";

/** A process connected to Redis as a `flow worker` (`CLIENT LIST`, connection name `meshflow:worker`). */
export interface WorkerRow {
  /** Remote address of its connection. */
  addr: string;
  /** Seconds since it connected. */
  ageSeconds: number;
  /** Seconds since its last command. */
  idleSeconds: number;
}

/** What `GET /api/queue` answers. */
export interface QueueSnapshot {
  /** The Redis URL, password hidden. */
  redis: string;
  prefix: string;
  counts: { runs: QueueCounts; calls: QueueCounts };
  /** The newest queued runs by status. */
  runs: Record<QueuedRun["status"], QueuedRun[]>;
  workers: WorkerRow[];
  /** Which worker (`host:pid`) runs each running queued run, from the run board. */
  busy: Array<{ worker: string; runId: string }>;
  /** Where Bull Board is (`flow dashboard`), when known. */
  bullBoard?: string;
}

/** Name a `flow worker` gives its Redis connection. */
const WORKER_CONNECTION_NAME = "meshflow:worker";

/**
 * The console's one reader of Redis: job counts of the runs and calls queues, the run board's newest
 * queued runs, and the workers connected now. Read-only: the console never changes the queue.
 */
export class QueueView {
  readonly #url: string;
  readonly #prefix: string;
  readonly #bullBoard: string | undefined;
  #queue: Promise<{ queue: RunQueue; redis: Awaited<ReturnType<typeof connectRedis>> }> | undefined;

  constructor(options: { url: string; prefix: string; bullBoard?: string }) {
    this.#url = options.url;
    this.#prefix = options.prefix;
    this.#bullBoard = options.bullBoard;
  }

  async #open() {
    this.#queue ??= (async () => {
      const redis = await connectRedis(this.#url, { role: "client", name: "meshflow:console" });
      const queue = await RunQueue.open({ redis, settings: { prefix: this.#prefix } });
      return { queue, redis };
    })();
    try {
      return await this.#queue;
    } catch (error) {
      this.#queue = undefined;
      throw error instanceof MeshflowError
        ? error
        : new MeshflowError("redis_unavailable", `Redis ${redactRedisUrl(this.#url)}: ${String(error)}`, {
            cause: error,
          });
    }
  }

  /** Counts, queued runs by status (the newest `limit`) and the connected workers. */
  async snapshot(limit = 100): Promise<QueueSnapshot> {
    const { queue, redis } = await this.#open();
    const [counts, list, clients] = await Promise.all([
      queue.counts(),
      queue.board.list(limit),
      redis.client("LIST") as Promise<string>,
    ]).catch((error: unknown) => {
      throw redisFailure(error, redactRedisUrl(this.#url));
    });
    const runs: QueueSnapshot["runs"] = { queued: [], running: [], passed: [], failed: [] };
    for (const run of list) runs[run.status].push(run);
    const workers: WorkerRow[] = [];
    for (const line of String(clients).split("\n")) {
      const fields = new Map(
        line
          .trim()
          .split(" ")
          .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const),
      );
      if (fields.get("name") !== WORKER_CONNECTION_NAME) continue;
      const addr = fields.get("addr") ?? "";
      workers.push({
        addr,
        ageSeconds: Number(fields.get("age") ?? 0),
        idleSeconds: Number(fields.get("idle") ?? 0),
      });
    }
    const snapshot: QueueSnapshot = {
      redis: redactRedisUrl(this.#url),
      prefix: this.#prefix,
      counts,
      runs,
      workers,
      busy: runs.running.map((r) => ({ worker: r.worker ?? "?", runId: r.runId })),
    };
    if (this.#bullBoard) snapshot.bullBoard = this.#bullBoard;
    return snapshot;
  }

  /**
   * Which worker ran each story of a queued run (story id → worker), from the run board; empty for a
   * run the board does not know. A per-story job's execution id `<runId>.<n>` names its queued run.
   */
  async workers(runId: string): Promise<Record<string, string>> {
    const { queue } = await this.#open();
    const run =
      (await queue.board.get(runId)) ??
      (/\.\d+$/.test(runId) ? await queue.board.get(runId.replace(/\.\d+$/, "")) : undefined);
    const workers: Record<string, string> = {};
    for (const story of run?.stories ?? []) if (story.worker) workers[story.id] = story.worker;
    return workers;
  }

  async close(): Promise<void> {
    const open = this.#queue;
    this.#queue = undefined;
    if (!open) return;
    const { queue, redis } = await open.catch(() => ({ queue: undefined, redis: undefined }));
    await queue?.close().catch(() => undefined);
    await redis?.quit().catch(() => redis.disconnect());
  }
}
