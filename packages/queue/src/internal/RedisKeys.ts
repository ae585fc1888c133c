/** Names of meshflow's own keys under one prefix (BullMQ's keys use the same prefix, through bullmq). */
export class RedisKeys {
  /** The prefix, ending in `:` (`meshflow:`). */
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** Hash of a run's call journal: idempotency key → entry JSON. */
  journal(id: string): string {
    return `${this.prefix}journal:${id}`;
  }

  /** Hash of a queued run's record. */
  run(runId: string): string {
    return `${this.prefix}run:${runId}`;
  }

  /** Hash of a queued run's story reports: story id → report JSON. */
  runStories(runId: string): string {
    return `${this.prefix}run:${runId}:stories`;
  }

  /** Hash: PRD content digest → id of the queued or running run with that content. */
  runDigests(): string {
    return `${this.prefix}run-digests`;
  }

  /** List of a queued run's approval requests and decisions (JSON lines, appended). */
  runApprovals(runId: string): string {
    return `${this.prefix}run:${runId}:approvals`;
  }

  /** Sorted set of queued run ids by creation time. */
  runIndex(): string {
    return `${this.prefix}run-index`;
  }
}
