import type { ToolAnnotations, ToolDescriptor, ToolResult } from "@meshflow/core";
import { ClientPool, createToolChain, describeFromPool, inMemoryServers } from "@meshflow/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { connectRedis } from "./connectRedis.js";
import { QueueExecutor } from "./QueueExecutor.js";
import type { QueueSettings } from "./QueueSettings.js";
import { QueueWorker } from "./QueueWorker.js";
import { RedisCallJournal } from "./RedisCallJournal.js";
import type { RedisClient } from "./RedisClient.js";

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
async function setup(calls: string[], settings: Partial<QueueSettings> = {}) {
  const prefix = `test-exec-${process.pid}-${++unique}:`;
  const redis: RedisClient = await connectRedis(inject("redisUrl"), { role: "worker" });
  const { servers, transportFactory } = inMemoryServers({ counter: () => counterServer(calls) });
  const pool = new ClientPool(servers, { transportFactory });
  const chain = createToolChain({ pool });
  const worker = await QueueWorker.start({
    redis,
    settings: { ...settings, prefix },
    queues: ["calls"],
    chain,
    describe: describeFromPool(pool),
  });
  const executor = await QueueExecutor.open({ redis, settings: { ...settings, prefix } });
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

describe("QueueExecutor without workers", () => {
  it("withdraws a call no worker takes in time (call_timeout, never run) and, on close, every waiting call (aborted)", async () => {
    const calls: string[] = [];
    const prefix = `test-idle-${process.pid}-${++unique}:`;
    const redis = await connectRedis(inject("redisUrl"), { role: "worker" });
    cleanup.push(() => redis.quit());
    const executor = await QueueExecutor.open({ redis, settings: { prefix }, queueWaitMs: 300 });
    const late = await executor.submit({ key: "idle/S/step1/1", tool: "counter__add", args: { label: "x" } }, {});
    expect(late).toMatchObject({ isError: true, code: "call_timeout" });
    expect(late.content[0]?.text).toContain("no worker started counter__add");

    const { Queue } = await import("bullmq");
    const queue = new Queue("calls", { connection: redis, prefix: prefix.slice(0, -1) });
    cleanup.push(() => queue.close());
    const queued = async () => {
      const counts = await queue.getJobCounts("waiting", "prioritized", "delayed", "active");
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    };
    const slow = await QueueExecutor.open({ redis, settings: { prefix } });
    const pending = slow.submit({ key: "idle/S/step1/2", tool: "counter__add", args: { label: "y" } }, {});
    // Closed once the call is in the queue, however long Redis took to take it.
    while ((await queued()) === 0) await new Promise((r) => setTimeout(r, 10));
    await slow.close();
    expect(await pending).toMatchObject({ isError: true, code: "aborted" });
    await executor.close();
    expect(await queued()).toBe(0);

    // A worker that starts afterwards finds nothing left to run.
    const { servers, transportFactory } = inMemoryServers({ counter: () => counterServer(calls) });
    const pool = new ClientPool(servers, { transportFactory });
    const worker = await QueueWorker.start({
      redis,
      settings: { prefix },
      queues: ["calls"],
      chain: createToolChain({ pool }),
      describe: describeFromPool(pool),
    });
    await new Promise((r) => setTimeout(r, 300));
    await worker.drain();
    await pool.close();
    expect(calls).toEqual([]);
  });

  it("keeps a bounded number of finished jobs, so Redis memory stays flat however many calls go through", async () => {
    const calls: string[] = [];
    const { executor, redis, prefix } = await setup(calls, { callsCompleted: { age: 3600, count: 20 } });
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        executor.submit({ key: `many/S/step1/${i}`, tool: "counter__add", args: { label: `${i}` }, runId: "many" }, {}),
      ),
    );
    expect(calls).toHaveLength(120);
    const { Queue } = await import("bullmq");
    const queue = new Queue("calls", { connection: redis, prefix: prefix.slice(0, -1) });
    const counts = await queue.getJobCounts("completed");
    await queue.close();
    expect(counts.completed).toBeLessThanOrEqual(21);
  });
});

describe("QueueExecutor retries", () => {
  it("retries an idempotent or read-only call that failed below the tool, never any other", async () => {
    const prefix = `test-retry-${process.pid}-${++unique}:`;
    const redis = await connectRedis(inject("redisUrl"), { role: "worker" });
    const runs: string[] = [];
    const chain = async (tool: string): Promise<ToolResult> => {
      runs.push(tool);
      // Every first run of a tool crashes its server; the second works.
      return runs.filter((t) => t === tool).length === 1
        ? { isError: true, code: "server_crashed", content: [{ type: "text", text: "server crashed" }] }
        : { content: [{ type: "text", text: `${tool} ok` }] };
    };
    const annotations: Record<string, ToolAnnotations> = {
      s__read: { readOnlyHint: true },
      s__write: { readOnlyHint: false, idempotentHint: false },
    };
    const describe = (name: string): ToolDescriptor => ({
      qualifiedName: name,
      server: "s",
      name: name.slice(3),
      description: "",
      inputSchema: { type: "object" },
      annotations: annotations[name] ?? {},
    });
    const worker = await QueueWorker.start({ redis, settings: { prefix }, queues: ["calls"], chain, describe });
    const executor = await QueueExecutor.open({ redis, settings: { prefix }, backoffMs: 20 });
    cleanup.push(
      () => redis.quit(),
      () => worker.drain(),
      () => executor.close(),
    );
    expect(await executor.submit({ key: "rt/S/step1/1", tool: "s__read", args: {} }, {})).toEqual({
      content: [{ type: "text", text: "s__read ok" }],
    });
    const write = await executor.submit({ key: "rt/S/step1/2", tool: "s__write", args: {} }, {});
    expect(write).toMatchObject({
      isError: true,
      code: "outcome_unknown",
      structuredContent: { error: { cause: "server_crashed" } },
    });
    expect(runs).toEqual(["s__read", "s__read", "s__write"]);
  });
});
