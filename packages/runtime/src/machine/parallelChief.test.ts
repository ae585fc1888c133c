import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { StepResult } from "../internal/StepRunner.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import { createParallelChief } from "./parallelChief.js";

function planOf(
  stories: Array<{ id: string; priority?: number; steps?: number[]; dependsOn?: string[]; skipped?: boolean }>,
): RunPlan {
  const planned = stories.map(
    (s, index): PlannedStory => ({
      story: {
        id: s.id,
        title: s.id,
        description: "",
        acceptanceCriteria: [],
        mavenSteps: s.steps ?? [1],
        mcpTools: {},
        priority: s.priority ?? 1,
        passes: s.skipped === true,
        notes: "",
        ...(s.dependsOn ? { dependsOn: s.dependsOn } : {}),
      },
      id: s.id,
      steps: s.steps ?? [1],
      index,
      skipped: s.skipped === true,
      specialists: (s.steps ?? [1]).map(() => "development-agent"),
    }),
  );
  return { prdFile: "prd.json", prdDir: ".", stories: planned, close: () => {} };
}

function start(plan: RunPlan, parallel: number, failFast = false) {
  const events: RunEvent[] = [];
  const actor = createActor(
    createParallelChief({
      plan: () => plan,
      failFast,
      parallel,
      describeStep: () => ({ specialist: "development-agent", tools: 0 }),
    }),
    { input: { runId: "r" } },
  );
  actor.on("*", (e) => events.push(e as RunEvent));
  actor.start();
  actor.send({ type: "PREFLIGHT_DONE", prd: "prd.json", stories: plan.stories.map((s) => s.id) });
  const running = () => actor.getSnapshot().context.slots.map((s) => plan.stories[s.story]?.id);
  const step = (story: number, status: StepResult["status"] = "passed", step = 1) =>
    actor.send({
      type: "STEP_DONE",
      story,
      result: { step, specialist: "development-agent", status, summary: status, calls: [], evidence: [] },
    });
  const conclude = (story: number) => {
    const slot = actor.getSnapshot().context.slots.find((s) => s.story === story);
    actor.send({ type: "CONCLUDED", story, status: slot?.storyStatus ?? "passed", summary: slot?.storySummary ?? "" });
  };
  return { actor, events, running, step, conclude };
}

describe("createParallelChief", () => {
  it("keeps up to n stories of one priority band in slots, starting the next as one concludes", () => {
    const plan = planOf([{ id: "A" }, { id: "B" }, { id: "C" }, { id: "D", priority: 2 }]);
    const run = start(plan, 2);
    expect(run.running()).toEqual(["A", "B"]);
    run.step(1);
    expect(run.actor.getSnapshot().context.slots.find((s) => s.story === 1)?.phase).toBe("concluding");
    run.conclude(1);
    expect(run.running()).toEqual(["A", "C"]);
    run.step(0);
    run.conclude(0);
    // D is of the next band: it waits for C.
    expect(run.running()).toEqual(["C"]);
    run.step(2);
    run.conclude(2);
    expect(run.running()).toEqual(["D"]);
    run.step(3);
    run.conclude(3);
    expect(run.actor.getSnapshot().value).toBe("finished");
    expect(run.actor.getSnapshot().context.counts).toEqual({ passed: 4, failed: 0, blocked: 0, skipped: 0 });
    expect(run.events.at(-1)).toMatchObject({ type: "run.finished", status: "passed", passed: 4 });
  });

  it("waits for dependsOn, runs each story's steps in order, counts skipped stories, stops on --fail-fast", () => {
    const plan = planOf([
      { id: "A", steps: [1, 7] },
      { id: "B", dependsOn: ["A"] },
      { id: "S", skipped: true },
      { id: "C" },
    ]);
    const run = start(plan, 3, true);
    expect(run.running()).toEqual(["A"]);
    run.step(0, "passed", 1);
    const steps = run.events.filter((e) => e.type === "step.started").map((e) => e.type === "step.started" && e.step);
    expect(steps).toEqual([1, 7]);
    run.step(0, "failed", 7);
    run.conclude(0);
    // A failed: --fail-fast starts nothing more.
    expect(run.running()).toEqual([]);
    expect(run.actor.getSnapshot().value).toBe("finished");
    expect(run.actor.getSnapshot().context.counts).toMatchObject({ failed: 1, passed: 0 });
  });

  it("skips stories with passes: true as it reaches them", () => {
    const plan = planOf([{ id: "S", skipped: true }, { id: "A" }]);
    const run = start(plan, 2);
    expect(run.running()).toEqual(["A"]);
    expect(run.events.find((e) => e.type === "story.finished")).toMatchObject({ storyId: "S", status: "skipped" });
    expect(run.actor.getSnapshot().context.counts.skipped).toBe(1);
  });
});
