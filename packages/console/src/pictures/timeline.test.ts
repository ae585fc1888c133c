import { describe, expect, it } from "vitest";
import { reports, storyEvents, t } from "./testRun.js";
import { buildTimeline, spanDetail } from "./timeline.js";

describe("buildTimeline", () => {
  it("puts stories that ran side by side in separate lanes, and one after another in the same", () => {
    const events = [
      ...storyEvents("US-1", 0, 1000),
      ...storyEvents("US-2", 100, 900),
      ...storyEvents("US-3", 200, 1200),
      // Starts after US-2 ended: it takes US-2's lane.
      ...storyEvents("US-4", 950, 1500),
    ].sort((a, b) => a.time.localeCompare(b.time));
    const timeline = buildTimeline(reports(["US-1", "US-2", "US-3", "US-4"], events), { now: t(5000) });
    expect(timeline.lanes.map((l) => l.stories.map((s) => s.story))).toEqual([["US-1"], ["US-2", "US-4"], ["US-3"]]);
    expect([timeline.start, timeline.end]).toEqual([t(0), t(1500)]);
    // Each story is followed by its step and the step's call, nested and timed.
    expect(timeline.lanes[0]?.rows.map((r) => [r.kind, r.depth, r.start, r.end])).toEqual([
      ["story", 0, t(0), t(1000)],
      ["step", 1, t(0), t(995)],
      ["call", 2, t(10), t(50)],
    ]);
  });

  it("ends what still runs at now, and marks failures and failed calls", () => {
    const events = [...storyEvents("US-1", 0, 100, { status: "failed", callError: true })];
    const running = storyEvents("US-2", 50, 0).slice(0, 3);
    const timeline = buildTimeline(reports(["US-1", "US-2"], [...events, ...running]), { now: t(700) });
    const rows = timeline.lanes.flatMap((l) => l.rows);
    expect(rows.find((r) => r.id === "US-1")?.mark).toBe("failed");
    // The hover card of the failed call says so and names its key.
    const failedCall = rows.find((r) => r.kind === "call" && r.story === "US-1");
    expect(failedCall && spanDetail(failedCall)).toEqual(["status error", "key r1/US-1/step1/1"]);
    expect(rows.find((r) => r.kind === "call" && r.story === "US-1")?.mark).toBe("failed");
    const open = rows.filter((r) => r.story === "US-2");
    expect(open.map((r) => [r.kind, r.open, r.end])).toEqual([
      ["story", true, t(700)],
      ["step", true, t(700)],
      ["call", true, t(700)],
    ]);
  });

  it("ends what a run that no longer runs left running at its end, not drawn as running", () => {
    const running = storyEvents("US-2", 50, 0).slice(0, 3);
    const timeline = buildTimeline(reports(["US-2"], running), { now: t(9000), ended: t(400) });
    const rows = timeline.lanes.flatMap((l) => l.rows);
    expect(rows.map((r) => [r.kind, r.open, r.end])).toEqual([
      ["story", false, t(400)],
      ["step", false, t(400)],
      ["call", false, t(400)],
    ]);
  });

  it("gives each worker of a queued run its own lane", () => {
    const events = [...storyEvents("US-1", 0, 100), ...storyEvents("US-2", 200, 300)];
    const timeline = buildTimeline(reports(["US-1", "US-2"], events), {
      now: t(1000),
      workers: { "US-1": "host:1", "US-2": "host:2" },
    });
    expect(timeline.lanes.map((l) => [l.label, l.stories.length])).toEqual([
      ["worker host:1", 1],
      ["worker host:2", 1],
    ]);
  });
});
