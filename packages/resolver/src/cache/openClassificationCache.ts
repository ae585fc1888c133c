import type { ClassificationCache } from "./ClassificationCache.js";
import { DEFAULT_CACHE_FILE, FileClassificationCache } from "./FileClassificationCache.js";
import { RedisClassificationCache } from "./RedisClassificationCache.js";

/** Options of {@link openClassificationCache}. */
export interface OpenCacheOptions {
  /** When set, classifications live in this Redis; otherwise in a JSON file. */
  redisUrl?: string | undefined;
  /** Redis key prefix, default `meshflow:`. */
  prefix?: string;
  /** The JSON file, default `.flow/cache/classifications.json`. */
  file?: string;
}

/**
 * The configured classification cache: Redis when a URL is given, else the JSON file.
 *
 * @example
 * const cache = await openClassificationCache({ redisUrl: process.env.FLOW_REDIS_URL });
 */
export async function openClassificationCache(options: OpenCacheOptions = {}): Promise<ClassificationCache> {
  if (options.redisUrl)
    return RedisClassificationCache.connect(options.redisUrl, options.prefix ? { prefix: options.prefix } : {});
  return new FileClassificationCache(options.file ?? DEFAULT_CACHE_FILE);
}
