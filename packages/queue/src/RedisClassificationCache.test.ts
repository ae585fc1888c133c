import { randomUUID } from "node:crypto";
import type { ToolDescriptor } from "@meshflow/core";
import { classifyTools, loadCapabilityCatalog } from "@meshflow/resolver";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freePort as freePortForTest } from "../../../tests/helpers/redisServer.js";
import { redactRedisUrl } from "./connectRedis.js";
import { RedisClassificationCache } from "./RedisClassificationCache.js";

const catalog = loadCapabilityCatalog();
const tool: ToolDescriptor = {
  qualifiedName: "memory__recall_graph",
  server: "memory",
  name: "recall_graph",
  description: "Read the entire knowledge graph",
  inputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
};

describe("RedisClassificationCache", () => {
  const opened: RedisClassificationCache[] = [];
  afterEach(async () => {
    for (const cache of opened.splice(0)) {
      await cache.clear();
      await cache.close();
    }
  });

  async function open(prefix: string): Promise<RedisClassificationCache> {
    const cache = await RedisClassificationCache.connect(inject("redisUrl"), { prefix });
    opened.push(cache);
    return cache;
  }

  it("shares classifications through a real Redis and re-classifies a changed tool", async () => {
    const prefix = `meshflow:test:${randomUUID()}:`;
    const first = await classifyTools([tool], { catalog, cache: await open(prefix) });
    expect(first.get(tool.qualifiedName)).toMatchObject({ source: "rule", capabilities: ["memory_read"] });

    // another process, same Redis and prefix: a cache hit
    const second = await classifyTools([tool], { catalog, cache: await open(prefix) });
    expect(second.get(tool.qualifiedName)?.source).toBe("cache");

    const changed = { ...tool, description: "Reads the whole graph", annotations: { readOnlyHint: false } };
    const third = await classifyTools([changed], { catalog, cache: await open(prefix) });
    expect(third.get(tool.qualifiedName)).toMatchObject({ source: "rule", capabilities: [] });
    const [stored] = await (await open(prefix)).getMany([tool.qualifiedName]);
    expect(stored?.capabilities).toEqual([]);
  });

  it("keeps prefixes apart and clear() removes only its own keys", async () => {
    const a = await open(`meshflow:test:${randomUUID()}:`);
    const b = await open(`meshflow:test:${randomUUID()}:`);
    await classifyTools([tool], { catalog, cache: a });
    expect(await b.getMany([tool.qualifiedName])).toEqual([undefined]);
    expect(await a.clear()).toBe(1);
    expect(await a.getMany([tool.qualifiedName])).toEqual([undefined]);
  });

  it("an unreachable Redis is redis_unavailable naming the URL without its password", async () => {
    const url = `redis://user:secret@127.0.0.1:${await freePortForTest()}`;
    const error = await RedisClassificationCache.connect(url, { connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "redis_unavailable" });
    expect(String(error)).toContain("cannot connect to Redis at redis://user:***@127.0.0.1:");
    expect(String(error)).not.toContain("secret");
    expect(redactRedisUrl("not a url")).toBe("(invalid Redis URL)");
  });
});
