import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { ConsultationState } from "../consult/ConsultFrame.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import { captureRun, describeSaved, restorableRun, upgradeSaved } from "../session/savedRun.js";
import { createChiefAnalyst, storyActorOf } from "./chiefAnalyst.js";
import type { StoryEvent } from "./storyActor.js";

const story = (id: string): PlannedStory => ({
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
  index: 0,
  skipped: false,
  specialists: ["development-agent"],
});
const plan: RunPlan = { prdFile: "prd.json", prdDir: ".", stories: [story("US-001")], close: () => {} };
let events: RunEvent[] = [];
const machine = createChiefAnalyst({
  plan: () => plan,
  failFast: false,
  describeStep: () => ({ specialist: "development-agent", tools: 0 }),
  emit: (e) => events.push(e),
});
type Chief = ReturnType<typeof createActor<typeof machine>>;
/** The story actor working US-001, to which the runtime sends the story's results. */
const storyActor = (actor: Chief) => storyActorOf(actor.getSnapshot(), 0);
const sendStory = (actor: Chief, event: StoryEvent) => storyActor(actor)?.send(event);
/** The consultations under the story actor of US-001. */
const consultsOf = (actor: Chief) => Object.keys(storyActor(actor)?.getSnapshot().children ?? {});
const consult = (id: string, depth: number): ConsultationState => ({
  id,
  keyBase: id.slice("US-001/".length),
  storyId: "US-001",
  step: 1,
  specialist: id.split("/").at(-1)?.split(".")[0] ?? "",
  by: "development-agent",
  question: "is it safe?",
  depth,
});
const passed: StepResult = {
  step: 1,
  specialist: "development-agent",
  status: "passed",
  summary: "ok",
  calls: [],
  evidence: [],
};

/** The snapshot (phase and context) of the story actor working US-001. */
const storyState = (actor: Chief) => storyActor(actor)?.getSnapshot();

describe("the chief analyst's consultations", () => {
  it("holds each running consultation as a child of its story's actor, in its persisted snapshot, and publishes its events", () => {
    events = [];
    const actor = createActor(machine, { input: { runId: "r" } });
    actor.start();
    actor.send({ type: "PREFLIGHT_DONE", prd: "prd.json", stories: ["US-001"] });
    expect(Object.keys(actor.getSnapshot().children)).toEqual(["story-1"]);
    expect(consultsOf(actor)).toEqual([]);
    const outer = consult("US-001/step1/security-agent.1", 1);
    const inner = consult("US-001/step1/security-agent.1/quality-agent.1", 2);
    sendStory(actor, { type: "CONSULT_STARTED", consult: outer });
    sendStory(actor, { type: "CONSULT_STARTED", consult: inner });
    expect(storyState(actor)?.value).toBe("working");
    const saved = captureRun(actor.getSnapshot());
    const children = saved.stories["story-1"]?.children as Record<string, { snapshot: { context: unknown } }>;
    expect(Object.keys(children)).toEqual([outer.id, inner.id]);
    expect(children[inner.id]?.snapshot.context).toEqual(inner);
    expect(describeSaved(JSON.parse(JSON.stringify(saved)))).toBe(`"working" in consultation ${outer.id}, ${inner.id}`);

    sendStory(actor, { type: "CONSULT_DONE", consult: inner, end: { status: "passed", summary: "fine", calls: 2 } });
    expect(consultsOf(actor)).toEqual([outer.id]);
    expect(events.filter((e) => e.type.startsWith("consult.")).map((e) => e.type)).toEqual([
      "consult.started",
      "consult.started",
      "consult.done",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "consult.done", consult: inner.id, status: "passed", calls: 2 });
  });

  it("restores a snapshot taken mid-consultation; RESUME stops the consultation, the step asks again", () => {
    const first = createActor(machine, { input: { runId: "r" } }).start();
    first.send({ type: "PREFLIGHT_DONE", prd: "prd.json", stories: ["US-001"] });
    sendStory(first, { type: "CONSULT_STARTED", consult: consult("US-001/step1/security-agent.1", 1) });
    const saved = JSON.parse(JSON.stringify(captureRun(first.getSnapshot())));
    first.stop();

    events = [];
    const resumed = createActor(machine, { input: { runId: "r" }, snapshot: restorableRun(saved) });
    resumed.start();
    expect(consultsOf(resumed)).toEqual(["US-001/step1/security-agent.1"]);
    resumed.send({ type: "RESUME" });
    expect(consultsOf(resumed)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(["step.started"]);
    sendStory(resumed, { type: "CONSULT_STARTED", consult: consult("US-001/step1/security-agent.1", 1) });
    sendStory(resumed, { type: "STEP_DONE", result: passed });
    expect(storyState(resumed)?.value).toBe("concluding");
  });

  it("resumes a snapshot recorded before stories were child actors, its consultation under the story", () => {
    // The form of `snapshot.ndjson` written by earlier versions: the current story in the chief's context.
    const older = {
      status: "active",
      value: "working",
      context: {
        runId: "r",
        story: 0,
        step: 0,
        steps: [],
        storyStatus: "passed",
        storySummary: "",
        counts: { passed: 0, failed: 0, blocked: 0, skipped: 0 },
        stop: false,
        environment: false,
      },
      children: {
        "US-001/step1/security-agent.1": {
          src: "consultation",
          snapshot: {
            status: "active",
            value: "consulting",
            context: consult("US-001/step1/security-agent.1", 1),
            children: {},
            historyValue: {},
          },
        },
      },
      historyValue: {},
    };
    const saved = upgradeSaved(older, plan);
    expect(describeSaved(saved)).toBe('"working" in consultation US-001/step1/security-agent.1');
    expect(saved?.context).toMatchObject({ next: 1, actors: [0] });
    events = [];
    const resumed = createActor(machine, {
      input: { runId: "r" },
      snapshot: restorableRun(saved ?? { value: "preflight", context: {} as never, stories: {} }),
    });
    resumed.start();
    expect(consultsOf(resumed)).toEqual(["US-001/step1/security-agent.1"]);
    resumed.send({ type: "RESUME" });
    sendStory(resumed, { type: "STEP_DONE", result: passed });
    resumed.send({ type: "CONCLUDED", story: 0, status: "passed", summary: "all steps passed", tokens: undefined });
    expect(resumed.getSnapshot().value).toBe("finished");
    expect(events.map((e) => e.type)).toEqual([
      "step.started",
      "step.finished",
      "gate.finished",
      "story.finished",
      "run.finished",
    ]);
  });
});
