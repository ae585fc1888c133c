import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { effectiveStatus, storyReports } from "./storyReports.js";

const base = { time: "2026-01-01T00:00:00.000Z", runId: "r1" };
const started = (storyId: string, step: number): RunEvent => ({
  ...base,
  type: "step.started",
  storyId,
  step,
  specialist: "development-agent",
  tools: 3,
});
const called = (storyId: string, step: number, seq: number): RunEvent => ({
  ...base,
  type: "tool.called",
  storyId,
  step,
  key: `r1/${storyId}/step${step}/${seq}`,
  tool: "memory__read_graph",
  argsDigest: "d",
  destructive: false,
});

describe("storyReports", () => {
  it("shows a step that started again (a resumed run) once, with its last attempt", () => {
    // Regression: the gateway's report pushed a re-run step again, so after a resume the step showed
    // twice, the interrupted attempt stuck on `running`.
    const events: RunEvent[] = [
      { ...base, type: "story.started", storyId: "US-1" },
      started("US-1", 1),
      called("US-1", 1, 1),
      { ...base, type: "run.resumed", prd: "prd.json", state: "running" },
      { ...base, type: "story.started", storyId: "US-1" },
      started("US-1", 1),
      called("US-1", 1, 1),
      called("US-1", 1, 2),
      { ...base, type: "step.finished", storyId: "US-1", step: 1, status: "passed", summary: "done" },
      started("US-1", 7),
      { ...base, type: "step.finished", storyId: "US-1", step: 7, status: "passed", summary: "ok" },
      { ...base, type: "story.finished", storyId: "US-1", status: "passed", summary: "all steps passed" },
    ];
    const [story] = storyReports({ stories: ["US-1", "US-2"] }, events);
    expect(story).toMatchObject({ id: "US-1", status: "passed", summary: "all steps passed" });
    expect(story?.steps.map((s) => [s.step, s.status, s.calls])).toEqual([
      [1, "passed", 2],
      [7, "passed", 0],
    ]);
  });

  it("keeps stories in the record's order, pending until they start, and sums model tokens", () => {
    const events: RunEvent[] = [
      { ...base, type: "story.started", storyId: "US-2" },
      started("US-2", 5),
      {
        ...base,
        type: "model.turn",
        storyId: "US-2",
        step: 5,
        inputTokens: 10,
        outputTokens: 4,
      } as RunEvent,
    ];
    const reports = storyReports({ stories: ["US-1", "US-2"] }, events);
    expect(reports.map((s) => [s.id, s.status])).toEqual([
      ["US-1", "pending"],
      ["US-2", "running"],
    ]);
    expect(reports[1]?.tokens).toEqual({ input: 10, output: 4, turns: 1 });
  });

  it("gives each story, step and consultation its start and end times with detail", () => {
    const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
    const events: RunEvent[] = [
      { ...base, time: at(1), type: "story.started", storyId: "US-1" },
      { ...started("US-1", 1), time: at(2) },
      {
        ...base,
        time: at(3),
        type: "consult.started",
        storyId: "US-1",
        step: 1,
        consult: "US-1/step1/quality-agent.1",
        specialist: "quality-agent",
        by: "development-agent",
        question: "ok?",
        depth: 1,
      },
      {
        ...base,
        time: at(4),
        type: "consult.done",
        storyId: "US-1",
        step: 1,
        consult: "US-1/step1/quality-agent.1",
        specialist: "quality-agent",
        status: "passed",
        summary: "yes",
        calls: 0,
      },
      { ...base, time: at(5), type: "step.finished", storyId: "US-1", step: 1, status: "passed", summary: "done" },
      { ...base, time: at(6), type: "story.finished", storyId: "US-1", status: "passed", summary: "done" },
    ];
    const [story] = storyReports({ stories: ["US-1"] }, events, { detail: true });
    expect([story?.startedAt, story?.finishedAt]).toEqual([at(1), at(6)]);
    expect([story?.steps[0]?.startedAt, story?.steps[0]?.finishedAt]).toEqual([at(2), at(5)]);
    const consult = story?.steps[0]?.consults?.[0];
    expect([consult?.startedAt, consult?.finishedAt]).toEqual([at(3), at(4)]);
    // Without detail the reports stay as flow status prints them.
    expect(storyReports({ stories: ["US-1"] }, events)[0]?.startedAt).toBeUndefined();
  });
});

describe("effectiveStatus", () => {
  it("shows a running run whose process is gone as interrupted", () => {
    expect(effectiveStatus({ status: "running", pid: 1 }, () => false)).toBe("interrupted");
    expect(effectiveStatus({ status: "running", pid: 1 }, () => true)).toBe("running");
    expect(effectiveStatus({ status: "passed", pid: 1 }, () => false)).toBe("passed");
  });
});
