import { ClientPool, createToolChain, describeFromPool, inMemoryServers } from "@meshflow/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { connectRedis } from "./connectRedis.js";
import { QueueExecutor } from "./QueueExecutor.js";
import { QueueWorker } from "./QueueWorker.js";
import { RedisCallJournal } from "./RedisCallJournal.js";

function counterServer(calls: string[]): McpServer {
  const server = new McpServer({ name: "counter", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds a label (not idempotent)", inputSchema: { label: z.string() } },
    async ({ label }) => {
      calls.push(label);
      return { content: [{ type: "text", text: `added ${label}` }] };
    },
  );
  server.registerTool("boom", { description: "Always throws", inputSchema: {} }, async () => {
    throw new Error("boom");
  });
  return server;
}

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

let unique = 0;
async function setup(calls: string[]) {
  const prefix = `test-exec-${process.pid}-${++unique}:`;
  const redis: Redis = await connectRedis(inject("redisUrl"), { role: "worker" });
  const { servers, transportFactory } = inMemoryServers({ counter: () => counterServer(calls) });
  const pool = new ClientPool(servers, { transportFactory });
  const chain = createToolChain({ pool });
  const worker = await QueueWorker.start({
    redis,
    settings: { prefix },
    queues: ["calls"],
    chain,
    describe: describeFromPool(pool),
  });
  const executor = await QueueExecutor.open({ redis, settings: { prefix } });
  cleanup.push(
    () => redis.quit(),
    () => pool.close(),
    () => worker.drain(),
    () => executor.close(),
  );
  return { redis, executor, prefix };
}

describe("QueueExecutor", () => {
  it("runs calls on a worker through the middleware chain; a journaled key is never run again", async () => {
    const calls: string[] = [];
    const { executor, redis, prefix } = await setup(calls);
    const call = (key: string, label: unknown) => ({ key, tool: "counter__add", args: { label }, runId: "r1" });

    const ok = await executor.submit(call("r1/S/step1/1", "a"), { repertoire: new Set(["counter__add"]) });
    expect(ok).toMatchObject({ content: [{ type: "text", text: "added a" }] });
    const again = await executor.submit(call("r1/S/step1/1", "a"), {});
    expect(again).toEqual(ok);
    expect(calls).toEqual(["a"]);

    const outside = await executor.submit(call("r1/S/step1/2", "b"), { repertoire: new Set() });
    expect(outside).toMatchObject({ isError: true, code: "not_in_repertoire" });
    const invalid = await executor.submit(call("r1/S/step1/3", 3), {});
    expect(invalid).toMatchObject({ isError: true, code: "invalid_arguments" });
    const thrown = await executor.submit({ key: "r1/S/step1/4", tool: "counter__boom", args: {}, runId: "r1" }, {});
    expect(thrown).toMatchObject({ isError: true });
    expect(calls).toEqual(["a"]);

    const journal = new RedisCallJournal(redis, "r1", { prefix });
    expect(await journal.get("r1/S/step1/1")).toMatchObject({ state: "finished", tool: "counter__add", result: ok });
    expect(await journal.unfinished()).toEqual([]);
  });
});
