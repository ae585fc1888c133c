import { describe, expect, it } from "vitest";
import { MergeQueue } from "./mergeQueue.js";

describe("MergeQueue", () => {
  it("lands stories in run order, one at a time, whatever order they conclude in", async () => {
    const queue = new MergeQueue();
    for (const story of [0, 1, 2]) queue.enter(story);
    const landed: number[] = [];
    let inside = 0;
    const land = (story: number) =>
      queue.turn(story, async () => {
        inside++;
        expect(inside).toBe(1);
        await new Promise((resolve) => setImmediate(resolve));
        landed.push(story);
        inside--;
      });
    const third = land(2);
    const second = land(1);
    const first = land(0);
    await Promise.all([first, second, third]);
    expect(landed).toEqual([0, 1, 2]);
  });

  it("lets a later story land once an earlier one left without landing", async () => {
    const queue = new MergeQueue();
    queue.enter(0);
    queue.enter(1);
    const later = queue.turn(1, async () => "landed");
    queue.leave(0);
    await expect(later).resolves.toBe("landed");
  });
});
