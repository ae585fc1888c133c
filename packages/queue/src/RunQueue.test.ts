import { afterEach, describe, expect, inject, it } from "vitest";
import { connectRedis } from "./connectRedis.js";
import { type EnqueueRequest, enqueueDigest, RunQueue } from "./RunQueue.js";

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const prdText = (title: string) =>
  JSON.stringify({ project: "P", branchName: "b", userStories: [{ id: "US-001", title }] }, null, 2);
const request = (text: string, extra: Partial<EnqueueRequest> = {}): EnqueueRequest => ({
  file: "prd.json",
  placement: "prd.json",
  prdText: text,
  storyIds: ["US-001"],
  workDigest: "sha256:w",
  ...extra,
});

describe("RunQueue", () => {
  it("gives one run for the same content while it is queued, a new one once it finished", async () => {
    const prefix = `test-runq-${process.pid}-${Date.now()}:`;
    const redis = await connectRedis(inject("redisUrl"), { role: "client" });
    const queue = await RunQueue.open({ redis, settings: { prefix } });
    cleanup.push(
      () => redis.quit(),
      () => queue.close(),
    );
    const first = await queue.enqueue(request(prdText("a")));
    expect(first.duplicate).toBe(false);
    // Formatting does not make it new content; options and content do.
    const reformatted = JSON.stringify(JSON.parse(prdText("a")));
    expect(await queue.enqueue(request(reformatted))).toEqual({ ...first, duplicate: true });
    expect((await queue.enqueue(request(prdText("a"), { perStory: true }))).duplicate).toBe(false);
    expect((await queue.enqueue(request(prdText("b")))).duplicate).toBe(false);
    expect((await queue.counts()).runs).toMatchObject({ waiting: 3, "waiting-children": 1 });

    const run = await queue.board.get(first.runId);
    expect(run).toMatchObject({ status: "queued", mode: "prd", file: "prd.json", attempts: 0 });
    expect(run?.stories.map((s) => [s.id, s.status])).toEqual([["US-001", "pending"]]);

    await queue.board.finish(first.runId, { status: "passed" });
    const again = await queue.enqueue(request(prdText("a")));
    expect(again.duplicate).toBe(false);
    expect(again.runId).not.toBe(first.runId);
    expect(enqueueDigest(request(prdText("a")))).toBe(enqueueDigest(request(reformatted)));
  });
});
