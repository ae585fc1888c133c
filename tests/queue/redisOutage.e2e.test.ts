import { afterEach, describe, expect, it } from "vitest";
import { type FlowWorker, startFlowWorker, until } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { type RedisServer, startRedisServer } from "../helpers/redisServer.js";

let redis: RedisServer | undefined;
let worker: FlowWorker | undefined;
afterEach(async () => {
  await worker?.stop("SIGKILL");
  worker = undefined;
  await redis?.stop();
  redis = undefined;
});

const lines = (text: string) => text.split("\n").filter(Boolean);

describe("flow worker while Redis is away", () => {
  it("logs one line when Redis goes and one when it is back, not one per reconnection attempt", async () => {
    redis = await startRedisServer();
    const ws = flowWorkspace();
    worker = await startFlowWorker(ws, redis.url, [
      "--redis-prefix",
      `outage-${process.pid}:`,
      "--drain-timeout",
      "3000",
    ]);
    const before = lines(worker.log()).length;
    await redis.kill();
    const current = worker;
    await until("the worker to notice", () => current.log().includes("Redis unreachable"));
    // About ten seconds away: many reconnection attempts by each of the worker's clients.
    await new Promise((r) => setTimeout(r, 10_000));
    await redis.restart();
    await until("the worker to see Redis again", () => current.log().includes("Redis is back"));
    const during = lines(current.log()).slice(before);
    expect(during.filter((l) => l.includes("Redis unreachable"))).toHaveLength(1);
    expect(during.filter((l) => l.includes("Redis is back"))).toHaveLength(1);
    // A handful, not dozens: nothing else repeats per attempt.
    expect(during.length).toBeLessThanOrEqual(4);
    expect(current.log()).not.toMatch(/ECONNREFUSED[\s\S]*ECONNREFUSED/);
    // SIGTERM still stops it (right after a restart, BullMQ's clients may still be reconnecting: the
    // drain timeout bounds the wait).
    expect(await current.stop("SIGTERM")).toBe(0);
    expect(current.log()).toMatch(/: drained|could not drain in time \(--drain-timeout 3000 ms\)/);
  }, 60_000);

  it("SIGTERM stops a worker whose Redis is gone within its drain timeout", async () => {
    redis = await startRedisServer();
    const ws = flowWorkspace();
    worker = await startFlowWorker(ws, redis.url, [
      "--redis-prefix",
      `gone-${process.pid}:`,
      "--drain-timeout",
      "2000",
    ]);
    await redis.kill();
    const current = worker;
    await until("the worker to notice", () => current.log().includes("Redis unreachable"));
    current.child.kill("SIGTERM");
    // It exits by itself (the test's own timeout would catch a worker that waits for Redis forever).
    const code = await current.exit;
    expect(code).toBe(0);
    expect(current.log()).toContain("draining within 2000 ms");
    expect(current.log()).toMatch(/could not drain in time \(--drain-timeout 2000 ms\); stopping anyway|: drained/);
  }, 30_000);
});
