import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { StepResult } from "../internal/StepRunner.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import { createChiefAnalyst, storyActorOf } from "./chiefAnalyst.js";
import type { StoryContext, StoryEvent } from "./storyActor.js";

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
    createChiefAnalyst({
      plan: () => plan,
      failFast,
      parallel,
      describeStep: () => ({ specialist: "development-agent", tools: 0 }),
      emit: (e) => events.push(e),
    }),
    { input: { runId: "r" } },
  );
  actor.start();
  actor.send({ type: "PREFLIGHT_DONE", prd: "prd.json", stories: plan.stories.map((s) => s.id) });
  const running = () =>
    actor
      .getSnapshot()
      .context.actors.flatMap((s) => (s === null ? [] : [plan.stories[s]?.id]))
      .sort();
  /** The results of a story's work go to the actor working it, as the runtime sends them. */
  const send = (story: number, event: StoryEvent) => storyActorOf(actor.getSnapshot(), story)?.send(event);
  const storyOf = (story: number) =>
    storyActorOf(actor.getSnapshot(), story)?.getSnapshot() as { value: string; context: StoryContext } | undefined;
  const step = (story: number, status: StepResult["status"] = "passed", step = 1, more: Partial<StepResult> = {}) =>
    send(story, {
      type: "STEP_DONE",
      result: { step, specialist: "development-agent", status, summary: status, calls: [], evidence: [], ...more },
    });
  /** The runtime reports a story's conclusion to the chief, with the status its actor came to. */
  const conclude = (story: number) => {
    const context = storyOf(story)?.context;
    actor.send({
      type: "CONCLUDED",
      story,
      status: context?.storyStatus ?? "passed",
      summary: context?.storySummary ?? "",
      tokens: undefined,
    });
  };
  return { actor, events, running, step, conclude, storyOf };
}

describe("createChiefAnalyst", () => {
  it("keeps up to n stories of one priority band in progress, starting the next as one concludes", () => {
    const plan = planOf([{ id: "A" }, { id: "B" }, { id: "C" }, { id: "D", priority: 2 }]);
    const run = start(plan, 2);
    expect(run.running()).toEqual(["A", "B"]);
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual(["story-1", "story-2"]);
    run.step(1);
    expect(run.storyOf(1)?.value).toBe("concluding");
    run.conclude(1);
    expect(run.running()).toEqual(["A", "C"]);
    run.step(0);
    run.conclude(0);
    // D is of the next band: it waits for C.
    expect(run.running()).toEqual(["C"]);
    run.step(2);
    run.conclude(2);
    expect(run.running()).toEqual(["D"]);
    // Four stories, two story actors: a free one takes the next story.
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual(["story-1", "story-2"]);
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

  it("works one story at a time on one story actor by default, its events in story order", () => {
    const plan = planOf([{ id: "A", steps: [1, 5] }, { id: "B" }]);
    const run = start(plan, 1);
    run.step(0, "passed", 1);
    run.step(0, "passed", 5);
    expect(run.storyOf(0)?.value).toBe("concluding");
    run.conclude(0);
    expect(run.running()).toEqual(["B"]);
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual(["story-1"]);
    // The free actor starts B afresh: nothing of A's steps is left in its context.
    expect(run.storyOf(1)?.context).toMatchObject({ story: 1, step: 0, steps: [], gate: undefined });
    run.step(1);
    run.conclude(1);
    expect(run.events.map((e) => `${e.type}${"storyId" in e ? ` ${e.storyId}` : ""}`)).toEqual([
      "run.started",
      "story.started A",
      "step.started A",
      "step.finished A",
      "step.started A",
      "step.finished A",
      "gate.finished A",
      "story.finished A",
      "story.started B",
      "step.started B",
      "step.finished B",
      "gate.finished B",
      "story.finished B",
      "run.finished",
    ]);
  });

  it("stops starting stories at once when a step halts the run, and notes an unreachable server", () => {
    const plan = planOf([{ id: "A" }, { id: "B" }, { id: "C" }]);
    const run = start(plan, 2);
    run.step(0, "blocked", 1, { halt: "the model refused the key", environment: true });
    // B goes on; C does not start, although A's story actor is about to be free.
    run.conclude(0);
    expect(run.running()).toEqual(["B"]);
    run.step(1);
    run.conclude(1);
    const { value, context } = run.actor.getSnapshot();
    expect(value).toBe("finished");
    expect(context).toMatchObject({ stop: true, halt: "the model refused the key", environment: true });
    expect(context.counts).toEqual({ passed: 1, failed: 0, blocked: 1, skipped: 0 });
  });

  it("starts every story a conclusion lets start, not only the one its actor takes", () => {
    // Only the next story started when a band's last story concluded: B took A's actor, C waited.
    const plan = planOf([{ id: "A" }, { id: "B", priority: 2 }, { id: "C", priority: 2 }]);
    const run = start(plan, 3);
    expect(run.running()).toEqual(["A"]);
    run.step(0);
    run.conclude(0);
    expect(run.running()).toEqual(["B", "C"]);
    expect(Object.keys(run.actor.getSnapshot().children)).toEqual(["story-1", "story-2"]);
  });
});
