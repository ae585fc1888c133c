import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";

// `flow run --parallel n`: independent stories side by side in one process, against our real slow
// server, the PRD written back by the completion gate as usual. How much faster side by side is, is
// `npm run bench -- parallel`; here the calls' overlap is read from the order the server saw them in.

const sleepStory = (ms = 50) => ({
  mcpTools: { step1: ["slow"] },
  calls: { step1: [{ tool: "slow__sleep", args: { ms } }] },
});
/**
 * A story whose one call notes its start and end in the server's `calls.log` and, until `meet` calls
 * have started (at most 5 s), waits: calls sent side by side overlap on the server for certain.
 */
const timedStory = (i: number, meet: number) => ({
  mcpTools: { step1: ["slow"] },
  calls: { step1: [{ tool: "slow__timed_read", args: { log: "calls.log", id: `s${i}`, meet } }] },
});
/** The most calls the server had in progress at once, from its log's order of starts and ends. */
function mostInProgress(log: string): number {
  let open = 0;
  let most = 0;
  for (const line of log.trim().split("\n")) {
    if (line.startsWith("start ")) most = Math.max(most, ++open);
    else if (line.startsWith("end ")) open--;
  }
  return most;
}
const passes = (prd: string) =>
  (JSON.parse(readFileSync(prd, "utf8")) as { userStories: Array<{ passes: boolean; notes: string }> }).userStories;

describe("flow run --parallel", () => {
  it("runs 40 independent stories 4 at a time, their calls side by side on the server, the PRD correct afterwards", async () => {
    const ws = flowWorkspace();
    ws.writePrd(Array.from({ length: 40 }, (_, i) => timedStory(i + 1, 4)));
    const parallel = await ws.flow(["run", "prd.json", "--json", "--parallel", "4", "--run-id", "side-by-side"]);
    expect(parallel.code, parallel.stderr).toBe(0);
    const events = parseEvents(parallel.stdout);
    // The server had four calls in progress at once (the first four met there), never more: a run that
    // sent its stories' calls one at a time, or more than four at once, shows otherwise in the log.
    const log = ws.read("calls.log");
    expect(log.match(/^start /gm)).toHaveLength(40);
    expect(mostInProgress(log)).toBe(4);
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
    // Stories 1–3 append their line and pass; from story 4 on each appends, then waits for the release
    // file: the kill lands when 1–3 have finished and 4–6 are inside their (not idempotent) call, whatever
    // the machine's pace, and 7–12 have not started.
    ws.writePrd(
      Array.from({ length: 12 }, (_, i) => ({
        mcpTools: { step1: ["slow"] },
        calls: {
          step1: [
            i < 3
              ? { tool: "slow__append_line", args: { file: "log.txt", line: `s${i + 1}` } }
              : {
                  tool: "slow__append_line_then_wait",
                  args: { file: "log.txt", line: `s${i + 1}`, waitFor: "release" },
                },
          ],
        },
      })),
    );
    const run = ws.spawnFlow(["run", "prd.json", "--json", "--parallel", "3", "--run-id", "killed"]);
    for (const id of ["US-001", "US-002", "US-003"])
      await run.next((e) => e.type === "story.finished" && e.storyId === id);
    const appended = () => (existsSync(join(ws.files, "log.txt")) ? ws.read("log.txt").trim().split("\n") : []);
    while (!["s4", "s5", "s6"].every((line) => appended().includes(line)))
      await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill("SIGKILL");
    await run.exit;
    writeFileSync(join(ws.files, "release"), "");
    const resumed = await ws.flow(["resume", "killed", "--json"]);
    const events = [...run.events, ...parseEvents(resumed.stdout)];
    expect(events.find((e) => e.type === "run.resumed")).toBeDefined();
    const finished = events.flatMap((e) => (e.type === "story.finished" ? [e] : []));
    // Each story finished once over both processes; the three whose append was in flight at the kill
    // are blocked with outcome_unknown (never appended twice), the others passed.
    const prd = () => JSON.parse(ws.read("../prd.json")) as { userStories: Array<{ id: string; passes: boolean }> };
    expect(finished.map((e) => e.storyId).sort()).toEqual(
      prd()
        .userStories.map((s) => s.id)
        .sort(),
    );
    const blocked = ["US-004", "US-005", "US-006"];
    for (const e of finished)
      if (blocked.includes(e.storyId))
        expect(e).toMatchObject({ status: "blocked", summary: expect.stringContaining("outcome_unknown") });
      else expect(e.status, e.storyId).toBe("passed");
    expect(resumed.code).toBe(1);
    const lines = ws.read("log.txt").trim().split("\n");
    expect(lines.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `s${i + 1}`).sort());
    for (const s of prd().userStories) expect(s.passes, s.id).toBe(!blocked.includes(s.id));
  });
});
