import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { ConsultationState } from "../consult/ConsultFrame.js";
import type { StepResult } from "../internal/StepRunner.js";
import { createChiefAnalyst, storyActorOf } from "../machine/chiefAnalyst.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import { captureRun, describeSaved, restorableRun, upgradeSaved } from "./savedRun.js";

const planned = (id: string, index: number): PlannedStory => ({
  story: {
    id,
    title: id,
    description: "",
    acceptanceCriteria: [],
    mavenSteps: [1],
    mcpTools: {},
    priority: 1,
    passes: false,
    notes: "",
  },
  id,
  steps: [1],
  index,
  skipped: false,
  specialists: ["development-agent"],
});
const plan: RunPlan = {
  prdFile: "prd.json",
  prdDir: ".",
  stories: ["US-001", "US-002", "US-003"].map(planned),
  close: () => {},
};
const tallies = {
  runId: "r",
  counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
  stop: false,
  environment: false,
};
const passed: StepResult = {
  step: 1,
  specialist: "development-agent",
  status: "passed",
  summary: "ok",
  calls: [],
  evidence: [],
};
const consult: ConsultationState = {
  id: "US-002/step1/quality-agent.1",
  keyBase: "step1/quality-agent.1",
  storyId: "US-002",
  step: 1,
  specialist: "quality-agent",
  by: "development-agent",
  question: "is it tested?",
  depth: 1,
};

describe("upgradeSaved", () => {
  it("carries a --parallel run recorded with slots over to story actors, each consultation under its story", () => {
    // The form of `snapshot.ndjson` that `--parallel` runs wrote before stories were child actors.
    const older = {
      status: "active",
      value: "running",
      context: {
        ...tallies,
        next: 2,
        slots: [
          { story: 0, phase: "concluding", step: 0, steps: [passed], storyStatus: "passed", storySummary: "ok" },
          { story: 1, phase: "working", step: 0, steps: [], storyStatus: "passed", storySummary: "" },
        ],
      },
      children: {
        [consult.id]: {
          src: "consultation",
          snapshot: { status: "active", value: "consulting", context: consult, children: {}, historyValue: {} },
        },
      },
      historyValue: {},
    };
    const saved = upgradeSaved(older, plan);
    expect(saved?.context).toMatchObject({ next: 2, actors: [0, 1] });
    expect(Object.keys(saved?.stories ?? {})).toEqual(["story-1", "story-2"]);
    expect(saved?.stories["story-2"]?.children).toHaveProperty([consult.id]);
    expect(describeSaved(saved, (s) => plan.stories[s]?.id ?? "")).toBe(
      `US-001 "concluding", US-002 "working" in consultation ${consult.id}`,
    );

    const events: RunEvent[] = [];
    const machine = createChiefAnalyst({
      plan: () => plan,
      failFast: false,
      parallel: 2,
      describeStep: () => ({ specialist: "development-agent", tools: 0 }),
      emit: (e) => events.push(e),
    });
    const actor = createActor(machine, { input: { runId: "r" }, snapshot: restorableRun(saved ?? ({} as never)) });
    actor.start();
    actor.send({ type: "RESUME" });
    // Only the working story starts its step again; the concluding one concludes.
    expect(events.map((e) => e.type === "step.started" && e.storyId)).toEqual(["US-002"]);
    const concluded = (story: number) =>
      actor.send({ type: "CONCLUDED", story, status: "passed", summary: "ok", tokens: undefined });
    concluded(0);
    // US-001's actor is free again and takes US-003.
    expect(actor.getSnapshot().context.actors).toEqual([2, 1]);
    storyActorOf(actor.getSnapshot(), 1)?.send({ type: "STEP_DONE", result: passed });
    concluded(1);
    storyActorOf(actor.getSnapshot(), 2)?.send({ type: "STEP_DONE", result: passed });
    // Persisted between two stories: the free actor keeps nothing of its story.
    expect(captureRun(actor.getSnapshot()).stories["story-2"]).toMatchObject({ value: "free", context: { steps: [] } });
    concluded(2);
    expect(actor.getSnapshot().value).toBe("finished");
    expect(actor.getSnapshot().context.counts.passed).toBe(3);
  });

  it("keeps a run saved in today's form, starts a run saved at its preflight afresh, refuses an unknown form", () => {
    const today = { value: "running", context: { ...tallies, next: 1, actors: [0] }, stories: {} };
    expect(upgradeSaved(today, plan)).toBe(today);
    expect(upgradeSaved({ value: "preflight", context: { ...tallies, story: 0, step: 0 } }, plan)).toMatchObject({
      value: "preflight",
      context: { next: 0, actors: [] },
      stories: {},
    });
    expect(upgradeSaved(undefined, plan)).toBeUndefined();
    expect(() => upgradeSaved({ value: "working" }, plan)).toThrow(/unknown form/);
  });
});
