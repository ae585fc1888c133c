import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { costSoFar } from "./costSoFar.js";

const base = { time: "2026-01-01T00:00:00.000Z", runId: "r1" };
const tokens = (costUsd: number) => ({ input: 10, output: 1, turns: 1, costUsd });

describe("costSoFar", () => {
  it("adds the finished steps' cost and their consultations', not a step the resume works again", () => {
    const events: RunEvent[] = [
      { ...base, type: "step.finished", storyId: "US-1", step: 1, status: "passed", summary: "", tokens: tokens(0.25) },
      {
        ...base,
        type: "consult.done",
        storyId: "US-1",
        step: 1,
        consult: "c1",
        specialist: "security-agent",
        status: "passed",
        summary: "",
        calls: 0,
        tokens: tokens(0.5),
      },
      // Step 2 did not finish: the resumed run replays its turns and counts them itself.
      {
        ...base,
        type: "consult.done",
        storyId: "US-1",
        step: 2,
        consult: "c2",
        specialist: "security-agent",
        status: "passed",
        summary: "",
        calls: 0,
        tokens: tokens(4),
      },
      { ...base, type: "step.finished", storyId: "US-2", step: 1, status: "failed", summary: "" },
    ];
    expect(costSoFar(events)).toBe(0.75);
  });
});
