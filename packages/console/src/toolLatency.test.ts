import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { percentile, toolLatency } from "./toolLatency.js";

const result = (tool: string, durationMs: number, isError = false, replayed = false): RunEvent => ({
  runId: "r",
  time: "t",
  type: "tool.result",
  storyId: "S",
  step: 1,
  key: "k",
  tool,
  isError,
  resultDigest: "d",
  durationMs,
  ...(replayed ? { replayed } : {}),
});

describe("toolLatency", () => {
  it("gives nearest-rank percentiles and error rates per tool, leaving replayed results out", () => {
    const durations = Array.from({ length: 100 }, (_, i) => result("a", i + 1));
    const rows = toolLatency([
      durations,
      [
        result("a", 5000, false, true),
        result("b", 10, true),
        {
          runId: "r",
          time: "t",
          type: "tool.refused",
          storyId: "S",
          step: 1,
          tool: "b",
          code: "guard_locked",
          message: "m",
        },
      ],
    ]);
    expect(rows).toEqual([
      { tool: "a", calls: 100, errors: 0, refused: 0, errorRate: 0, p50: 50, p95: 95, p99: 99 },
      { tool: "b", calls: 1, errors: 1, refused: 1, errorRate: 1, p50: 10, p95: 10, p99: 10 },
    ]);
    expect(percentile([], 0.5)).toBe(0);
  });
});
