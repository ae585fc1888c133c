/** The default key prefix of every Redis key meshflow writes (its own and BullMQ's). */
export const DEFAULT_REDIS_PREFIX = "meshflow:";

/** The queue of tool-call jobs (one job per call). */
export const CALLS_QUEUE = "calls";
/** The queue of run jobs (one per PRD, or a parent and one child per story). */
export const RUNS_QUEUE = "runs";

/** The queues a worker can process. */
export type QueueName = typeof CALLS_QUEUE | typeof RUNS_QUEUE;

/** How many finished jobs BullMQ keeps, by age (seconds) and count, so Redis memory stays flat. */
export interface KeepJobs {
  age: number;
  count: number;
}

/** Where meshflow's queues live in Redis and how long what they leave behind is kept. */
export interface QueueSettings {
  /** Prefix of every key, ending in `:` (default `meshflow:`). BullMQ keys are `<prefix><queue>:…`. */
  prefix: string;
  /** Finished tool-call jobs kept (default: 1 hour, at most 10,000 each for completed and failed). */
  callsCompleted: KeepJobs;
  callsFailed: KeepJobs;
  /** Finished run jobs kept (default: 7 days, at most 1,000 each). */
  runsCompleted: KeepJobs;
  runsFailed: KeepJobs;
  /** A run's call journal expires this long after its last write (default 7 days). */
  journalTtlSeconds: number;
  /** A finished queued run's record and story reports expire after this (default 7 days). */
  runTtlSeconds: number;
}

const DAY = 24 * 3600;

/**
 * The settings with defaults filled in; the prefix always ends in `:`. With `cluster` (the client is a
 * Redis Cluster client), a prefix without a hash tag gets one (`meshflow:` becomes `{meshflow}:`):
 * BullMQ's scripts and meshflow's own (a call's claim reads the job's lock and the run's journal) touch
 * several keys at once, which a cluster allows only within one hash slot.
 */
export function queueSettings(overrides: Partial<QueueSettings> = {}, cluster = false): QueueSettings {
  const given = overrides.prefix ?? DEFAULT_REDIS_PREFIX;
  const prefix = cluster ? hashTagged(given) : given;
  return {
    callsCompleted: { age: 3600, count: 10_000 },
    callsFailed: { age: 3600, count: 10_000 },
    runsCompleted: { age: 7 * DAY, count: 1_000 },
    runsFailed: { age: 7 * DAY, count: 1_000 },
    journalTtlSeconds: 7 * DAY,
    runTtlSeconds: 7 * DAY,
    ...overrides,
    prefix: prefix.endsWith(":") ? prefix : `${prefix}:`,
  };
}

/** BullMQ's `prefix` option for our prefix (BullMQ adds the `:` itself). */
export function bullPrefix(settings: QueueSettings): string {
  return settings.prefix.slice(0, -1);
}

/** A prefix whose keys share one cluster hash slot: `meshflow:` → `{meshflow}:`; one with a `{tag}` is kept. */
export function hashTagged(prefix: string): string {
  if (/\{[^}]+\}/.test(prefix)) return prefix;
  const bare = prefix.endsWith(":") ? prefix.slice(0, -1) : prefix;
  return `{${bare}}:`;
}
