import type { ToolDescriptor, ToolResult } from "@meshflow/core";
import type { ToolHandler } from "@meshflow/mcp";
import { afterEach, describe, expect, inject, it } from "vitest";
import { callJobId } from "./callJob.js";
import { connectRedis } from "./connectRedis.js";
import { QueueExecutor } from "./QueueExecutor.js";
import { QueueWorker } from "./QueueWorker.js";
import { RedisCallJournal } from "./RedisCallJournal.js";

const descriptor = (qualifiedName: string): ToolDescriptor => ({
  qualifiedName,
  server: "s",
  name: qualifiedName.slice(3),
  description: "",
  inputSchema: { type: "object" },
  annotations: { idempotentHint: false, readOnlyHint: false },
});
const text = (t: string): ToolResult => ({ content: [{ type: "text", text: t }] });

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe("RedisCallJournal", () => {
  it("reports a call a live worker is running as not started, a dead attempt's call as started, a result as finished", async () => {
    const prefix = `test-journal-${process.pid}-${Date.now()}:`;
    const redis = await connectRedis(inject("redisUrl"), { role: "worker" });
    let release: (() => void) | undefined;
    const running = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const chain: ToolHandler = async (tool) => {
      entered();
      await running;
      return text(`${tool} done`);
    };
    const worker = await QueueWorker.start({
      redis,
      settings: { prefix },
      queues: ["calls"],
      chain,
      describe: descriptor,
    });
    const executor = await QueueExecutor.open({ redis, settings: { prefix } });
    cleanup.push(
      () => redis.quit(),
      () => worker.drain(),
      () => executor.close(),
    );
    const journal = new RedisCallJournal(redis, "j1", { prefix });
    const key = "j1/S/step1/1";
    const result = executor.submit({ key, tool: "s__write", args: { a: 1 }, runId: "j1" }, {});
    await started;
    // In flight on a live worker: submitting it again would join the running job, so it is not "started".
    expect(await journal.get(key)).toBeUndefined();
    expect(await journal.unfinished()).toEqual([]);
    // The worker's lock gone (as when it died): the outcome is unknown.
    const lockKey = `${prefix}calls:${callJobId(key)}:lock`;
    const token = await redis.get(lockKey);
    await redis.del(lockKey);
    expect(await journal.get(key)).toMatchObject({ key, tool: "s__write", state: "started" });
    expect((await journal.unfinished()).map((e) => e.key)).toEqual([key]);
    // Restored (the worker was only slow): it finishes and records its result, which then stands.
    await redis.set(lockKey, token ?? "", "PX", 30_000);
    release?.();
    expect(await result).toEqual(text("s__write done"));
    expect(await journal.get(key)).toMatchObject({ state: "finished", result: text("s__write done") });
    await journal.finish(key, text("a caller's late view"), 1);
    expect(await journal.get(key)).toMatchObject({ result: text("s__write done") });
  });

  it("records a result the caller got for a call no worker took, but never an aborted one", async () => {
    const prefix = `test-journal2-${process.pid}-${Date.now()}:`;
    const redis = await connectRedis(inject("redisUrl"), { role: "client" });
    cleanup.push(() => redis.quit());
    const journal = new RedisCallJournal(redis, "j2", { prefix });
    await journal.begin({ key: "j2/S/step1/1", tool: "s__write", argsDigest: "sha256:x" });
    await journal.finish("j2/S/step1/1", { isError: true, code: "aborted", content: [] }, 0);
    expect(await journal.get("j2/S/step1/1")).toBeUndefined();
    await journal.begin({ key: "j2/S/step1/2", tool: "s__write", argsDigest: "sha256:y" });
    await journal.finish("j2/S/step1/2", { isError: true, code: "call_timeout", content: [] }, 5);
    expect(await journal.get("j2/S/step1/2")).toMatchObject({
      state: "finished",
      tool: "s__write",
      argsDigest: "sha256:y",
      result: { code: "call_timeout" },
    });
  });
});
