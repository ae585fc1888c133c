import { MeshflowError } from "@meshflow/core";
import type { Cluster, Redis } from "ioredis";
import { clusterProblem } from "./internal/clusterHealth.js";
import { serverInfo } from "./internal/RedisAdapter.js";
import type { RedisClient } from "./RedisClient.js";
import { isRedisClusterUrl, parseRedisClusterUrl, redactRedisClusterUrl } from "./redisClusterUrl.js";
import { redisCause } from "./redisFailure.js";

/**
 * `worker`: reconnects forever and never fails a command while Redis is away (`maxRetriesPerRequest:
 * null`, what BullMQ workers require), so a Redis restart only pauses work. `client`: short-lived
 * commands (`flow enqueue`, `flow status`) that should report an unreachable Redis instead of waiting.
 */
export type RedisRole = "worker" | "client";

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  role?: RedisRole;
  /** Give up the first connection after this long (default 5 s). */
  connectTimeoutMs?: number;
  /** CLIENT SETNAME, shown by `CLIENT LIST`. */
  name?: string;
}

/** A Redis URL with its password replaced, safe to print. */
export function redactRedisUrl(url: string): string {
  if (isRedisClusterUrl(url)) return redactRedisClusterUrl(url);
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid Redis URL)";
  }
}

const detail = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Connects to Redis at `url` and waits until it answers. Throws `redis_unavailable` (the URL named,
 * password hidden) when it cannot, `redis_misconfigured` for a URL that is not one. A
 * `redis+cluster://host:port,host:port` URL connects to a Redis Cluster through those seed nodes.
 *
 * @example
 * const redis = await connectRedis("redis://127.0.0.1:6379", { role: "worker" });
 */
export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<RedisClient> {
  if (isRedisClusterUrl(url)) return connectCluster(url, options);
  const where = redactRedisUrl(url);
  if (!/^rediss?:\/\//.test(url))
    throw new MeshflowError(
      "redis_misconfigured",
      `not a Redis URL: ${where} (expected redis://host:port or redis+cluster://host:port,host:port)`,
    );
  const { Redis } = await import("ioredis");
  const worker = options.role === "worker";
  let client: Redis;
  try {
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      maxRetriesPerRequest: worker ? null : 3,
      // The first connection gets a few quick tries; after it, see below.
      retryStrategy: (times) => (times > 3 ? null : times * 200),
      ...(options.name ? { connectionName: options.name } : {}),
    });
  } catch (cause) {
    throw new MeshflowError("redis_misconfigured", `invalid Redis URL ${where}: ${detail(cause)}`, { cause });
  }
  // Errors surface through connect() and the commands; without a listener ioredis prints them. The
  // last one says why a connection failed (connect() itself only says it closed).
  let lastError: unknown;
  client.on("error", (error: unknown) => {
    lastError = error;
  });
  try {
    await client.connect();
  } catch (cause) {
    client.disconnect();
    throw new MeshflowError(
      "redis_unavailable",
      `cannot connect to Redis at ${where}: ${redisCause(lastError ?? cause)}`,
      {
        cause: lastError ?? cause,
        details: { url: where },
      },
    );
  }
  // Once connected, a worker waits out any outage (BullMQ resumes where it was); a client gives up.
  client.options.retryStrategy = worker ? reconnectDelay : (times) => (times > 5 ? null : 200);
  return client;
}

/** {@link connectRedis} for a `redis+cluster://` URL: an ioredis Cluster over the seed nodes. */
async function connectCluster(url: string, options: ConnectRedisOptions): Promise<Cluster> {
  const where = redactRedisUrl(url);
  const parsed = parseRedisClusterUrl(url);
  const timeoutMs = options.connectTimeoutMs ?? 5_000;
  const problem = await clusterProblem(parsed, timeoutMs);
  if (problem)
    throw new MeshflowError(problem.code, `Redis Cluster at ${where}: ${problem.message}`, { details: { url: where } });
  const { Cluster } = await import("ioredis");
  const worker = options.role === "worker";
  const client = new Cluster(parsed.nodes, {
    lazyConnect: true,
    // The first connection gets a few quick tries; after it, as for one server (see connectRedis).
    clusterRetryStrategy: (times) => (times > 3 ? null : times * 200),
    redisOptions: {
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: worker ? null : 3,
      ...(parsed.username ? { username: parsed.username } : {}),
      ...(parsed.password ? { password: parsed.password } : {}),
      ...(parsed.tls ? { tls: {} } : {}),
      ...(options.name ? { connectionName: options.name } : {}),
    },
  });
  let lastError: unknown;
  client.on("error", (error: unknown) => {
    lastError = error;
  });
  try {
    // Bounded: a cluster that loses its slots between the check above and here is waited on for ever.
    await deadline(client.connect(), timeoutMs * 2);
  } catch (cause) {
    client.disconnect();
    throw new MeshflowError(
      "redis_unavailable",
      `cannot connect to Redis Cluster at ${where}: ${redisCause(lastError ?? cause)}`,
      { cause: lastError ?? cause, details: { url: where } },
    );
  }
  client.options.clusterRetryStrategy = worker ? (times) => reconnectDelay(times) : (times) => (times > 5 ? null : 200);
  return client;
}

/** `pending`, or a rejection once `ms` have passed without it settling. */
async function deadline<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([pending, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The longest wait between two reconnection attempts of a worker's clients. */
export const RECONNECT_CAP_MS = 5_000;

/**
 * A worker client's wait before reconnection attempt `times` (1, 2, …): exponential from 200 ms,
 * capped at {@link RECONNECT_CAP_MS}, with jitter (half fixed, half random) so many workers (and
 * BullMQ's duplicated clients) do not knock on a recovering Redis in step.
 */
export function reconnectDelay(times: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RECONNECT_CAP_MS, 200 * 2 ** Math.min(Math.max(times - 1, 0), 16));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Refuses a Redis that may evict keys: an evicted job, lock or journal entry would lose or repeat
 * tool calls. Throws `redis_misconfigured` naming the policy found and how to fix it.
 */
export async function assertNoEviction(client: RedisClient, url: string): Promise<void> {
  // On a cluster every master holds keys: each of them must keep them.
  const servers = isCluster(client) ? client.nodes("master") : [client];
  for (const server of servers) {
    const policy = (await serverInfo(server, "memory")).get("maxmemory_policy");
    if (policy === undefined || policy === "noeviction") continue;
    const node = isCluster(client) ? ` (node ${server.options.host}:${server.options.port})` : "";
    throw new MeshflowError(
      "redis_misconfigured",
      `Redis at ${redactRedisUrl(url)}${node} has maxmemory-policy ${policy}; meshflow's queues need noeviction ` +
        "(an evicted job, lock or journal entry would lose or repeat tool calls). Set it in redis.conf " +
        "(maxmemory-policy noeviction) or with: redis-cli CONFIG SET maxmemory-policy noeviction",
      { details: { url: redactRedisUrl(url), policy } },
    );
  }
}

/** True when the client is a Redis Cluster client. */
export function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}
