import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connectRedis, QueueExecutor, RedisCallJournal } from "@meshflow/queue";
import { afterEach, describe, expect, inject, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";

let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGTERM")));
  workers = [];
});

describe("QueueExecutor with flow worker processes", () => {
  it("two workers, 200 independent non-idempotent calls: exactly 200 executions, each once", async () => {
    const url = inject("redisUrl");
    const prefix = `calls-${process.pid}-${Date.now()}:`;
    const ws = flowWorkspace();
    const args = ["--queues", "calls", "--concurrency", "25", "--redis-prefix", prefix];
    workers = await Promise.all([
      startFlowWorker(ws, url, [...args, "--name", "one"]),
      startFlowWorker(ws, url, [...args, "--name", "two"]),
    ]);
    const redis = await connectRedis(url, { role: "worker" });
    const executor = await QueueExecutor.open({ redis, settings: { prefix } });
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          executor.submit(
            {
              key: `burst/S/step1/${i + 1}`,
              tool: "slow__append_line",
              args: { file: "calls.txt", line: `call-${i + 1}` },
            },
            { annotationAware: true },
          ),
        ),
      );
      expect(results.filter((r) => r.isError)).toEqual([]);
      const lines = readFileSync(join(ws.files, "calls.txt"), "utf8").trim().split("\n");
      expect(lines).toHaveLength(200);
      expect(new Set(lines).size).toBe(200);

      // Submitting the same keys again replays the journal: nothing runs a second time.
      const again = await executor.submit(
        { key: "burst/S/step1/7", tool: "slow__append_line", args: { file: "calls.txt", line: "call-7" } },
        { annotationAware: true },
      );
      expect(again).toEqual(results[6]);
      expect(readFileSync(join(ws.files, "calls.txt"), "utf8").trim().split("\n")).toHaveLength(200);
      const journal = new RedisCallJournal(redis, "burst", { prefix });
      expect(await journal.unfinished()).toEqual([]);
    } finally {
      await executor.close();
      redis.disconnect();
    }
  }, 90_000);
});
