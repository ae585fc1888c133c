import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

// `flow run --parallel n`: independent stories side by side in one process, against our real slow
// server (a 50 ms `sleep` tool per story), the PRD written back by the completion gate as usual.

const sleepStory = (ms = 50) => ({
  mcpTools: { step1: ["slow"] },
  calls: { step1: [{ tool: "slow__sleep", args: { ms } }] },
});
/** Milliseconds between a run's `run.started` and `run.finished` (the process's start-up excluded). */
function runMs(events: RunEvent[]): number {
  const start = events.find((e) => e.type === "run.started");
  const end = events.find((e) => e.type === "run.finished");
  if (!start || !end) throw new Error("no run.started / run.finished");
  return Date.parse(end.time) - Date.parse(start.time);
}
const passes = (prd: string) =>
  (JSON.parse(readFileSync(prd, "utf8")) as { userStories: Array<{ passes: boolean; notes: string }> }).userStories;

describe("flow run --parallel", () => {
  it("runs 40 independent stories 4 at a time in well under the sequential time, the PRD correct afterwards", async () => {
    const ws = flowWorkspace();
    const stories = Array.from({ length: 40 }, () => sleepStory());
    const original = ws.writePrd(stories);
    const sequential = await ws.flow(["run", "prd.json", "--json", "--parallel", "1"]);
    expect(sequential.code).toBe(0);
    writeFileSync(ws.prd, original);
    const parallel = await ws.flow(["run", "prd.json", "--json", "--parallel", "4", "--run-id", "side-by-side"]);
    expect(parallel.code).toBe(0);
    const events = parseEvents(parallel.stdout);
    // Generous: 4 at a time should take about a quarter of the time.
    expect(runMs(events)).toBeLessThan(0.6 * runMs(parseEvents(sequential.stdout)));
    expect(passes(ws.prd).every((s) => s.passes && s.notes.includes("side-by-side"))).toBe(true);
    // Stories overlapped, and every story event names its story.
    let open = 0;
    let most = 0;
    for (const e of events) {
      if (e.type === "story.started") most = Math.max(most, ++open);
      if (e.type === "story.finished") open--;
      if (e.type.startsWith("step.") || e.type.startsWith("tool.")) expect(e).toHaveProperty("storyId");
    }
    expect(most).toBe(4);
    const finished = events.filter((e) => e.type === "story.finished");
    expect(finished).toHaveLength(40);
    const record = JSON.parse(readFileSync(join(ws.dir, ".flow/runs/side-by-side/run.json"), "utf8"));
    expect(record.options.parallel).toBe(4);
  });

  it("keeps priority bands and dependsOn, each story's steps in order, and --fail-fast", async () => {
    const ws = flowWorkspace();
    ws.writePrd([
      { ...sleepStory(100), id: "A", priority: 1 },
      { ...sleepStory(10), id: "B", priority: 1, dependsOn: ["A"] },
      {
        id: "C",
        priority: 2,
        mavenSteps: [1, 7],
        mcpTools: { step1: ["slow"], step7: ["slow"] },
        calls: {
          step1: [{ tool: "slow__sleep", args: { ms: 10 } }],
          step7: [{ tool: "slow__sleep", args: { ms: 10 } }],
        },
      },
      { ...sleepStory(10), id: "D", priority: 3, calls: { step1: [{ tool: "slow__always_fail", args: {} }] } },
      { ...sleepStory(10), id: "E", priority: 3, calls: { step1: [{ tool: "slow__sleep", args: { ms: 300 } }] } },
      { ...sleepStory(10), id: "F", priority: 4 },
    ]);
    const run = await ws.flow(["run", "prd.json", "--json", "--parallel", "3", "--fail-fast"]);
    expect(run.code).toBe(1);
    const events = parseEvents(run.stdout);
    const order = events.flatMap((e) =>
      e.type === "story.started" ? [`+${e.storyId}`] : e.type === "story.finished" ? [`-${e.storyId}`] : [],
    );
    // B waits for A; C (next band) for both; D and E side by side; after D failed nothing new starts.
    expect(order.slice(0, 6)).toEqual(["+A", "-A", "+B", "-B", "+C", "-C"]);
    expect(order.slice(6, 8)).toEqual(["+D", "+E"]);
    expect(order).not.toContain("+F");
    const cSteps = events.flatMap((e) => (e.type === "step.started" && e.storyId === "C" ? [e.step] : []));
    expect(cSteps).toEqual([1, 7]);
    expect(passes(ws.prd).map((s) => s.passes)).toEqual([true, true, true, false, true, false]);
  });

  it("kill -9 mid-run, then flow resume with the recorded --parallel: every story finishes once, no append twice", async () => {
    const ws = flowWorkspace();
    ws.writePrd(
      Array.from({ length: 12 }, (_, i) => ({
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            { tool: "slow__append_line", args: { file: "log.txt", line: `s${i + 1}` } },
            { tool: "slow__sleep", args: { ms: 50 } },
          ],
        },
      })),
    );
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--parallel", "3", "--run-id", "killed"]);
    await run.next((e) => e.type === "story.finished" && e.storyId === "US-004");
    run.child.kill("SIGKILL");
    await run.exit;
    const resumed = await ws.flow(["resume", "killed", "--json"]);
    const events = [...run.events, ...parseEvents(resumed.stdout)];
    expect(events.find((e) => e.type === "run.resumed")).toBeDefined();
    const finished = events.filter((e) => e.type === "story.finished");
    // Each story finished once over both processes; one whose append was in flight at the kill is
    // blocked with outcome_unknown (never appended twice), the others passed.
    expect(finished.map((e) => e.storyId).sort()).toEqual(
      ws
        .read("../prd.json")
        .match(/US-\d+/g)
        ?.sort(),
    );
    for (const e of finished)
      if (e.type === "story.finished" && e.status !== "passed") expect(e.summary).toContain("outcome_unknown");
    expect(resumed.code).toBe(finished.every((e) => e.type === "story.finished" && e.status === "passed") ? 0 : 1);
    const lines = ws.read("log.txt").trim().split("\n");
    expect(new Set(lines).size).toBe(lines.length);
    const passed = new Set(
      finished.flatMap((e) => (e.type === "story.finished" && e.status === "passed" ? [e.storyId] : [])),
    );
    const prd = JSON.parse(ws.read("../prd.json")) as { userStories: Array<{ id: string; passes: boolean }> };
    for (const s of prd.userStories) expect(s.passes).toBe(passed.has(s.id));
    expect(passed.size).toBeGreaterThanOrEqual(10);
  });
});
