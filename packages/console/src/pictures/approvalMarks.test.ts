import { describe, expect, it } from "vitest";
import { at, reports, storyEvents, t } from "./testRun.js";
import { buildTimeline, spanDetail } from "./timeline.js";

const request = (storyId: string) => ({
  type: "requested" as const,
  time: at(20),
  key: `r1/${storyId}/step1/1`,
  storyId,
  step: 1,
  specialist: "development-agent",
  tool: "memory__read_graph",
  args: {},
  argsDigest: "d",
  rule: "destructive",
});

describe("approval marks on the timeline", () => {
  it("marks the call that waits and its story amber, and says which tool waits", () => {
    const timeline = buildTimeline(reports(["US-1"], storyEvents("US-1", 0, 100)), {
      now: t(1000),
      approvals: { pending: [request("US-1")], decisions: [] },
    });
    const rows = timeline.lanes.flatMap((l) => l.rows);
    const call = rows.find((r) => r.kind === "call");
    expect([call?.mark, call?.approval?.state]).toEqual(["approval", "waiting"]);
    expect(call && spanDetail(call)[0]).toBe("memory__read_graph waiting for approval");
    const story = rows.find((r) => r.kind === "story");
    expect(story?.mark).toBe("approval");
    expect(story && spanDetail(story)[0]).toBe("memory__read_graph waiting for approval");
    // The step is not marked: the amber is for what waits, the story and its call.
    expect(rows.find((r) => r.kind === "step")?.approval).toBeUndefined();
  });

  it("says who approved or denied a call and why, and leaves calls without a decision alone", () => {
    const events = [...storyEvents("US-1", 0, 100), ...storyEvents("US-2", 0, 100), ...storyEvents("US-3", 0, 100)];
    const decided = (storyId: string, approved: boolean) => ({
      type: "decided" as const,
      time: at(50),
      key: `r1/${storyId}/step1/1`,
      argsDigest: "d",
      approved,
      reason: approved ? "looked at it" : "not on main",
      by: "flow approve (ann@host, pid 1)",
    });
    const timeline = buildTimeline(reports(["US-1", "US-2", "US-3"], events), {
      now: t(1000),
      approvals: { pending: [], decisions: [decided("US-1", true), decided("US-2", false)] },
    });
    const call = (story: string) =>
      timeline.lanes.flatMap((l) => l.rows).find((r) => r.kind === "call" && r.story === story);
    expect(call("US-1")?.approval?.state).toBe("approved");
    expect(call("US-1")?.mark).toBeUndefined();
    expect(spanDetail(call("US-1") ?? ({} as never))[0]).toBe(
      "memory__read_graph approved by flow approve (ann@host, pid 1): looked at it",
    );
    expect(call("US-2")?.approval?.state).toBe("denied");
    expect(call("US-3")?.approval).toBeUndefined();
  });

  it("marks a call the run paused at (refused with approval_required) as waiting without the approvals book", () => {
    const key = "r1/US-1/step1/1";
    const base = { runId: "r1", storyId: "US-1" };
    const events = [
      ...storyEvents("US-1", 0, 100).slice(0, 2),
      {
        ...base,
        time: at(10),
        type: "tool.refused",
        step: 1,
        key,
        tool: "memory__read_graph",
        code: "approval_required",
        message: "waits",
      },
    ] as Parameters<typeof reports>[1];
    const timeline = buildTimeline(reports(["US-1"], events), { now: t(1000) });
    const call = timeline.lanes.flatMap((l) => l.rows).find((r) => r.kind === "call");
    expect([call?.mark, call?.approval?.state]).toEqual(["approval", "waiting"]);
  });
});
