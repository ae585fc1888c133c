import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { at, reports, storyEvents } from "./testRun.js";
import { compareRuns, usageSeries } from "./usage.js";

const turn = (storyId: string, ms: number, input: number, costUsd?: number): RunEvent =>
  ({
    runId: "r1",
    storyId,
    step: 1,
    time: at(ms),
    type: "model.turn",
    turn: 1,
    provider: "openai",
    model: "gpt-test",
    inputTokens: input,
    outputTokens: 10,
    latencyMs: 5,
    toolCalls: [],
    ...(costUsd === undefined ? { costUnknown: true } : { costUsd }),
  }) as RunEvent;

describe("usageSeries", () => {
  it("sums tokens and cost turn by turn in time order, and counts turns of unknown cost", () => {
    const events = [
      ...storyEvents("US-1", 0, 1000).slice(0, 2),
      turn("US-1", 500, 100, 0.01),
      ...storyEvents("US-2", 0, 1000).slice(0, 2),
      turn("US-2", 200, 50),
      turn("US-2", 700, 20, 0.002),
    ];
    const points = usageSeries(reports(["US-1", "US-2"], events));
    expect(points.map((p) => [p.story, p.input, p.output, p.unpricedTurns])).toEqual([
      ["US-2", 50, 10, 1],
      ["US-1", 150, 20, 1],
      ["US-2", 170, 30, 1],
    ]);
    expect(points.at(-1)?.costUsd).toBeCloseTo(0.012);
  });
});

describe("compareRuns", () => {
  it("puts each story's time, tokens, cost and outcome of two runs side by side", () => {
    const a = reports(
      ["US-1", "US-2"],
      [...storyEvents("US-1", 0, 1000), ...storyEvents("US-2", 0, 400, { status: "failed" })],
    );
    const b = reports(["US-2", "US-3"], [...storyEvents("US-2", 0, 300), ...storyEvents("US-3", 0, 200)]);
    expect(compareRuns(a, b)).toEqual([
      { story: "US-1", a: { status: "passed", durationMs: 1000, tokens: 0 } },
      {
        story: "US-2",
        a: { status: "failed", durationMs: 400, tokens: 0 },
        b: { status: "passed", durationMs: 300, tokens: 0 },
      },
      { story: "US-3", b: { status: "passed", durationMs: 200, tokens: 0 } },
    ]);
  });
});
