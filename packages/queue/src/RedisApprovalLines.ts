import { MeshflowError } from "@meshflow/core";
import { RedisAdapter } from "./internal/RedisAdapter.js";
import { RedisKeys } from "./internal/RedisKeys.js";
import { type QueueSettings, queueSettings } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";

/**
 * A queued run's approval requests and decisions in Redis (list `<prefix>run:<runId>:approvals`), one
 * JSON value per line, appended by whichever worker runs the run and by `flow approve --redis` from
 * anywhere. The lines' meaning (requests, decisions) is the runtime's; this keeps them durable and
 * shared, so the run's pending approvals outlive any worker.
 */
export class RedisApprovalLines {
  readonly #adapter: RedisAdapter;
  readonly #runId: string;

  constructor(redis: RedisClient, runId: string, settings: Partial<QueueSettings> = {}) {
    this.#adapter = new RedisAdapter(redis, new RedisKeys(queueSettings(settings, redis.isCluster).prefix));
    this.#runId = runId;
  }

  /** Every line so far, parsed, in order. */
  async lines(): Promise<unknown[]> {
    return (await this.#adapter.approvals(this.#runId)).map((text, i) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (cause) {
        throw new MeshflowError("internal", `approvals of queued run ${this.#runId}: line ${i + 1} is not JSON`, {
          cause,
        });
      }
    });
  }

  /** Appends one value; durable (as Redis is) when it resolves. */
  async append(value: unknown): Promise<void> {
    await this.#adapter.appendApproval(this.#runId, JSON.stringify(value));
  }
}
