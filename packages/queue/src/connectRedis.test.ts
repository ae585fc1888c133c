import { describe, expect, inject, it } from "vitest";
import { freePort, startRedisServer } from "../../../tests/helpers/redisServer.js";
import { assertNoEviction, connectRedis, RECONNECT_CAP_MS, reconnectDelay, redactRedisUrl } from "./connectRedis.js";

describe("connectRedis", () => {
  it("names an unreachable Redis (password hidden) with redis_unavailable", async () => {
    const url = `redis://:s3cret@127.0.0.1:${await freePort()}`;
    const failure = await connectRedis(url, { connectTimeoutMs: 500 }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: "redis_unavailable" });
    expect(String((failure as Error).message)).toContain("redis://:***@127.0.0.1");
    expect(String((failure as Error).message)).not.toContain("s3cret");
    expect(redactRedisUrl("nonsense")).toBe("(invalid Redis URL)");
    await expect(connectRedis("http://127.0.0.1:1")).rejects.toMatchObject({ code: "redis_misconfigured" });
  });
});

describe("assertNoEviction", () => {
  it("accepts noeviction and refuses any other maxmemory-policy with the fix", async () => {
    const ok = await connectRedis(inject("redisUrl"));
    await expect(assertNoEviction(ok, inject("redisUrl"))).resolves.toBeUndefined();
    ok.disconnect();
    const server = await startRedisServer({ args: ["--maxmemory-policy", "volatile-lru"] });
    const evicting = await connectRedis(server.url);
    try {
      await expect(assertNoEviction(evicting, server.url)).rejects.toMatchObject({
        code: "redis_misconfigured",
        message: expect.stringContaining("CONFIG SET maxmemory-policy noeviction"),
      });
    } finally {
      evicting.disconnect();
      await server.stop();
    }
  });
});

describe("reconnectDelay", () => {
  it("grows from 200 ms, is capped, and is jittered between half and all of its ceiling", () => {
    expect(reconnectDelay(1, () => 0)).toBe(100);
    expect(reconnectDelay(1, () => 1)).toBe(200);
    expect(reconnectDelay(3, () => 1)).toBe(800);
    expect(reconnectDelay(50, () => 1)).toBe(RECONNECT_CAP_MS);
    expect(reconnectDelay(50, () => 0)).toBe(RECONNECT_CAP_MS / 2);
    const spread = new Set(Array.from({ length: 20 }, () => reconnectDelay(10)));
    expect(spread.size).toBeGreaterThan(1);
  });
});
