import { MeshflowError } from "@meshflow/core";
import { type CachedClassification, type ClassificationCache, isCachedClassification } from "@meshflow/resolver";
import { connectRedis, redactRedisUrl } from "./connectRedis.js";
import { DEFAULT_REDIS_PREFIX, hashTagged } from "./QueueSettings.js";
import type { RedisClient } from "./RedisClient.js";
import { isRedisClusterUrl } from "./redisClusterUrl.js";

/** Options of {@link RedisClassificationCache.connect}. */
export interface RedisCacheOptions {
  /** Key prefix, default `meshflow:` (hash-tagged on a cluster, so one MGET reaches every key). */
  prefix?: string;
  /** Give up connecting after this long (ms), default 3,000. */
  connectTimeoutMs?: number;
}

const detail = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/**
 * The resolver's tool classifications in Redis, one string key per tool holding the JSON entry
 * (`<prefix>classification:<server>__<tool>`), so every process and machine sharing the Redis shares
 * the classifications. Works on one server or a Redis Cluster (`redis+cluster://…`).
 */
export class RedisClassificationCache implements ClassificationCache {
  readonly kind = "redis";
  readonly location: string;
  readonly #client: RedisClient;
  readonly #prefix: string;
  readonly #ownsClient: boolean;

  private constructor(client: RedisClient, prefix: string, location: string, ownsClient: boolean) {
    this.#client = client;
    this.#prefix = prefix;
    this.location = location;
    this.#ownsClient = ownsClient;
  }

  /** Wraps a connected client the caller owns (and closes). */
  static fromClient(client: RedisClient, prefix = DEFAULT_REDIS_PREFIX): RedisClassificationCache {
    return new RedisClassificationCache(client, prefix, "(injected client)", false);
  }

  /** Connects to `url`; fails with `redis_unavailable` (naming the URL, password hidden) when it cannot. */
  static async connect(url: string, options: RedisCacheOptions = {}): Promise<RedisClassificationCache> {
    const client = await connectRedis(url, { role: "client", connectTimeoutMs: options.connectTimeoutMs ?? 3_000 });
    const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
    return new RedisClassificationCache(
      client,
      isRedisClusterUrl(url) ? hashTagged(prefix) : prefix,
      redactRedisUrl(url),
      true,
    );
  }

  #key(qualifiedName: string): string {
    return `${this.#prefix}classification:${qualifiedName}`;
  }

  #failure(cause: unknown, what: string): MeshflowError {
    return new MeshflowError(
      "redis_unavailable",
      `classification cache: ${what} at ${this.location} failed: ${detail(cause)}`,
      { cause },
    );
  }

  async getMany(qualifiedNames: readonly string[]): Promise<(CachedClassification | undefined)[]> {
    if (!qualifiedNames.length) return [];
    let values: (string | null)[];
    try {
      values = await this.#client.mget(qualifiedNames.map((n) => this.#key(n)));
    } catch (cause) {
      throw this.#failure(cause, "reading");
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
    for (const entry of entries) flat.push(this.#key(entry.qualifiedName), JSON.stringify(entry));
    try {
      await this.#client.mset(flat);
    } catch (cause) {
      throw this.#failure(cause, "writing");
    }
  }

  /** Deletes every key of this cache's prefix (for tests and maintenance); on a cluster, on every master. */
  async clear(): Promise<number> {
    const client = this.#client;
    const nodes = "nodes" in client && typeof client.nodes === "function" ? client.nodes("master") : [client];
    let removed = 0;
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", `${this.#prefix}classification:*`, "COUNT", 500);
        cursor = next;
        if (keys.length) removed += await node.del(...keys);
      } while (cursor !== "0");
    }
    return removed;
  }

  async close(): Promise<void> {
    if (!this.#ownsClient) return;
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }
}
