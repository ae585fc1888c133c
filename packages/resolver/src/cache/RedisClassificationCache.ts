// The resolver's one Redis adapter: every Redis command of this package is in this file.
import { MeshflowError } from "@meshflow/core";
import type { Redis } from "ioredis";
import { type CachedClassification, type ClassificationCache, isCachedClassification } from "./ClassificationCache.js";

/** The default key prefix; keys are `<prefix>classification:<server>__<tool>`. */
export const DEFAULT_REDIS_PREFIX = "meshflow:";

/** Options of {@link RedisClassificationCache.connect}. */
export interface RedisCacheOptions {
  /** Key prefix, default `meshflow:`. */
  prefix?: string;
  /** Give up connecting after this long (ms), default 3,000. */
  connectTimeoutMs?: number;
}

/** A Redis URL with its password replaced, safe to print. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid Redis URL)";
  }
}

/**
 * Classifications in Redis, one string key per tool holding the JSON entry, so every process and machine
 * sharing the Redis shares the classifications. `ioredis` is loaded only when a Redis cache is opened.
 */
export class RedisClassificationCache implements ClassificationCache {
  readonly kind = "redis";
  readonly location: string;
  private readonly ownsClient: boolean;

  private constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    location: string,
    ownsClient: boolean,
  ) {
    this.location = location;
    this.ownsClient = ownsClient;
  }

  /** Wraps a connected client the caller owns (and closes). */
  static fromClient(client: Redis, prefix = DEFAULT_REDIS_PREFIX): RedisClassificationCache {
    return new RedisClassificationCache(client, prefix, "(injected client)", false);
  }

  /** Connects to `url`; fails with `redis_unavailable` (naming the URL, password hidden) when it cannot. */
  static async connect(url: string, options: RedisCacheOptions = {}): Promise<RedisClassificationCache> {
    const location = redactRedisUrl(url);
    const { Redis } = await import("ioredis");
    let client: Redis;
    try {
      client = new Redis(url, {
        lazyConnect: true,
        connectTimeout: options.connectTimeoutMs ?? 3_000,
        maxRetriesPerRequest: 2,
        // A few quick retries, then give up: callers fall back or report, never hang.
        retryStrategy: (times) => (times > 3 ? null : times * 100),
      });
    } catch (cause) {
      throw new MeshflowError("redis_misconfigured", `classification cache: invalid Redis URL ${location}`, { cause });
    }
    client.on("error", () => {
      // Reported through the failing command or connect() below; without a listener ioredis prints to stderr.
    });
    try {
      await client.connect();
    } catch (cause) {
      client.disconnect();
      throw new MeshflowError(
        "redis_unavailable",
        `classification cache: cannot connect to Redis at ${location}: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause, details: { url: location } },
      );
    }
    return new RedisClassificationCache(client, options.prefix ?? DEFAULT_REDIS_PREFIX, location, true);
  }

  private key(qualifiedName: string): string {
    return `${this.prefix}classification:${qualifiedName}`;
  }

  private failure(cause: unknown, what: string): MeshflowError {
    return new MeshflowError(
      "redis_unavailable",
      `classification cache: ${what} at ${this.location} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }

  async getMany(qualifiedNames: readonly string[]): Promise<(CachedClassification | undefined)[]> {
    if (!qualifiedNames.length) return [];
    let values: (string | null)[];
    try {
      values = await this.client.mget(qualifiedNames.map((n) => this.key(n)));
    } catch (cause) {
      throw this.failure(cause, "reading");
    }
    return values.map((value) => {
      if (value === null) return undefined;
      try {
        const parsed: unknown = JSON.parse(value);
        return isCachedClassification(parsed) ? parsed : undefined;
      } catch {
        return undefined; // a corrupt entry is a miss; the fresh classification overwrites it
      }
    });
  }

  async setMany(entries: readonly CachedClassification[]): Promise<void> {
    if (!entries.length) return;
    const flat: string[] = [];
    for (const entry of entries) flat.push(this.key(entry.qualifiedName), JSON.stringify(entry));
    try {
      await this.client.mset(flat);
    } catch (cause) {
      throw this.failure(cause, "writing");
    }
  }

  /** Deletes every key of this cache's prefix (for tests and `--reset`-style maintenance). */
  async clear(): Promise<number> {
    let removed = 0;
    let cursor = "0";
    do {
      const [next, keys] = await this.client.scan(cursor, "MATCH", `${this.prefix}classification:*`, "COUNT", 500);
      cursor = next;
      if (keys.length) removed += await this.client.del(...keys);
    } while (cursor !== "0");
    return removed;
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
