import type { RunSession, RunSummary } from "@meshflow/runtime/host";
import { describe, expect, it } from "vitest";
import { RunTracker } from "./RunTracker.js";

/** A run session whose end the test decides. */
function session(runId: string): { session: RunSession; end: (status: RunSummary["status"]) => void } {
  let end: (summary: RunSummary) => void = () => {};
  const done = new Promise<RunSummary>((resolve) => {
    end = resolve;
  });
  return {
    session: { done, runId: () => runId, abort: () => {} },
    end: (status) =>
      end({
        runId,
        status,
        warnings: [],
        environment: false,
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
      }),
  };
}

describe("RunTracker", () => {
  // Regression: `flow serve` kept every run it started (session, machine, tool plane) for good.
  it("prunes an ended run to its summary and keeps only the newest summaries", async () => {
    const tracker = new RunTracker(2);
    const runs = ["r1", "r2", "r3", "r4"].map((runId) => {
      const s = session(runId);
      tracker.add({ runId, prd: "/p.json", startedAt: "t", session: s.session });
      return s;
    });
    expect(tracker.size()).toEqual({ active: 4, finished: 0 });
    runs[0]?.end("passed");
    runs[1]?.end("refused");
    runs[2]?.end("failed");
    await Promise.all(runs.slice(0, 3).map((r) => r.session.done));
    await new Promise((resolve) => setImmediate(resolve));
    expect(tracker.size()).toEqual({ active: 1, finished: 2 });
    expect(tracker.active().map((r) => r.runId)).toEqual(["r4"]);
    expect(tracker.get("r1")).toBeUndefined(); // in the run store only
    expect(tracker.get("r2")).toMatchObject({ runId: "r2", summary: { status: "refused" } });
    expect(tracker.get("r2")).not.toHaveProperty("session");
    expect(tracker.get("r4")).toHaveProperty("session");
  });
});
