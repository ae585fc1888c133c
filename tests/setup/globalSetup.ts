import type { TestProject } from "vitest/node";
import { type RedisServer, startRedisServer } from "../helpers/redisServer.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:<port>` of the redis-server the suite started; use a unique key prefix per test. */
    redisUrl: string;
  }
}

let redis: RedisServer | undefined;

/** Starts one real redis-server for the whole suite on a free loopback port; fault tests start their own. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  redis = await startRedisServer();
  project.provide("redisUrl", redis.url);
  return async () => {
    await redis?.stop();
  };
}
