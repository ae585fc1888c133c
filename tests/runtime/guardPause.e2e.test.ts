import { readFileSync } from "node:fs";
import { connectRedis, RunBoard } from "@meshflow/queue";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { startFlowWorker, until } from "../helpers/flowWorker.js";
import { flowWorkspace, parseEvents } from "../helpers/flowWorkspace.js";
import { enqueue, finishedRun } from "../helpers/queuedRuns.js";

// A limit pauses a run, it does not fail it: the guard locking (here its rate limit) stops the run where
// it is, resumable, with no story failed because of the lock.

/** `n` stories of one echo call each. */
function echoStories(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    id: `US-${String(i + 1).padStart(3, "0")}`,
    mcpTools: { step1: ["everything"] },
    calls: { step1: [{ tool: "everything__echo", args: { message: `m${i}` } }] },
  }));
}

const passes = (file: string) =>
  (JSON.parse(readFileSync(file, "utf8")).userStories as Array<{ passes: boolean }>).filter((s) => s.passes).length;

describe("the guard locking during a run", () => {
  // Regression: past the rate limit every story after it failed (a 20,000-story PRD ended with 6,000
  // passed and 14,000 failed, to be reset by hand): the guard's refusals concluded the steps.
  for (const parallel of [1, 4])
    it(`pauses a flow run${parallel > 1 ? ` --parallel ${parallel}` : ""}: exit 130, no story failed; flow resume --calls-per-minute 0 passes every story`, async () => {
      const ws = flowWorkspace();
      ws.writePrd(echoStories(100));
      const run = await ws.flow([
        "run",
        "prd.json",
        "--json",
        "--calls-per-minute",
        "30",
        "--run-id",
        "limited",
        ...(parallel > 1 ? ["--parallel", String(parallel)] : []),
      ]);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain("run limited paused: the guard locked (rate_limit_exceeded: rate limit exceeded");
      expect(run.stderr).toContain("no story failed because of it");
      expect(run.stderr).toContain("flow resume limited --calls-per-minute <n>");
      const events = parseEvents(run.stdout);
      const concluded = events.flatMap((e) => (e.type === "story.finished" ? [e.status] : []));
      expect(concluded.length).toBeGreaterThanOrEqual(30 - parallel);
      expect(new Set(concluded)).toEqual(new Set(["passed"]));
      expect(events.filter((e) => e.type === "step.finished" && e.status !== "passed")).toEqual([]);
      expect(events.find((e) => e.type === "run.finished")).toMatchObject({ status: "aborted", failed: 0, blocked: 0 });
      // Side by side, a story whose conclusion was being written when the run paused is marked in the PRD
      // while its story.finished waits for the resume (as after a Ctrl-C).
      expect(passes(ws.prd)).toBeGreaterThanOrEqual(concluded.length);
      expect(passes(ws.prd)).toBeLessThanOrEqual(concluded.length + parallel);

      const resumed = await ws.flow(["resume", "limited", "--calls-per-minute", "0", "--json"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(passes(ws.prd)).toBe(100);
      // Each story's call ran once: the refused one (never sent) ran on resume under a key of its own.
      const echoed = [...parseEvents(run.stdout), ...parseEvents(resumed.stdout)].filter(
        (e) => e.type === "tool.result" && !e.replayed,
      );
      expect(echoed).toHaveLength(100);
    }, 120_000);

  it("pauses a queued run: the worker whose guard locked gives it back, no story failed; another worker finishes it", async () => {
    const url = inject("redisUrl");
    const prefix = `pause-${process.pid}-${Date.now()}:`;
    const ws = flowWorkspace();
    ws.writePrd(echoStories(6));
    const limited = await startFlowWorker(ws, url, [
      "--redis-prefix",
      prefix,
      "--calls-per-minute",
      "3",
      "--name",
      "L",
    ]);
    onTestFinished(() => limited.stop("SIGTERM").then(() => undefined));
    const [runId = ""] = await enqueue(ws, url, ["prd.json", "--redis-prefix", prefix]);
    await until("the limited worker to pause", () => /flow worker L: paused: its guard locked/.test(limited.log()));
    expect(limited.log()).toContain("restart this worker with a higher --calls-per-minute <n>");
    const redis = await connectRedis(url, { role: "client" });
    try {
      const board = new RunBoard(redis, { prefix });
      const back = await until("the run back in the queue", async () => {
        const run = await board.get(runId);
        return run?.status === "queued" && run.error?.includes("worker L paused") ? run : undefined;
      });
      expect(back.stories.filter((s) => s.status === "failed" || s.status === "blocked")).toEqual([]);
    } finally {
      redis.disconnect();
    }
    const free = await startFlowWorker(ws, url, ["--redis-prefix", prefix, "--calls-per-minute", "0", "--name", "F"]);
    onTestFinished(() => free.stop("SIGTERM").then(() => undefined));
    const run = await finishedRun(url, runId, { prefix });
    expect(run).toMatchObject({ status: "passed", counts: { passed: 6, failed: 0, blocked: 0 } });
  }, 120_000);
});
