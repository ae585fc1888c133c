import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import type { ConsultationState } from "../consult/ConsultFrame.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { PlannedStory, RunPlan } from "../RunPlan.js";
import { createChiefAnalyst } from "./chiefAnalyst.js";
import { describeSaved } from "./consultation.js";

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
const machine = createChiefAnalyst({
  plan: () => plan,
  failFast: false,
  describeStep: () => ({ specialist: "development-agent", tools: 0 }),
});
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

describe("the chief analyst's consultations", () => {
  it("holds each running consultation as a child actor, in its persisted snapshot, and publishes its events", () => {
    const events: RunEvent[] = [];
    const actor = createActor(machine, { input: { runId: "r" } });
    actor.on("*", (e) => events.push(e as RunEvent));
    actor.start();
    actor.send({ type: "PREFLIGHT_DONE", prd: "prd.json", stories: ["US-001"] });
    expect(actor.getSnapshot().children).toEqual({});
    const outer = consult("US-001/step1/security-agent.1", 1);
    const inner = consult("US-001/step1/security-agent.1/quality-agent.1", 2);
    actor.send({ type: "CONSULT_STARTED", consult: outer });
    actor.send({ type: "CONSULT_STARTED", consult: inner });
    expect(actor.getSnapshot().value).toBe("working");
    const saved = actor.getPersistedSnapshot() as unknown as {
      children: Record<string, { snapshot: { context: unknown } }>;
    };
    expect(Object.keys(saved.children)).toEqual([outer.id, inner.id]);
    expect(saved.children[inner.id]?.snapshot.context).toEqual(inner);
    expect(describeSaved(JSON.parse(JSON.stringify(saved)))).toBe(`"working" in consultation ${outer.id}, ${inner.id}`);

    actor.send({ type: "CONSULT_DONE", consult: inner, end: { status: "passed", summary: "fine", calls: 2 } });
    expect(Object.keys(actor.getSnapshot().children)).toEqual([outer.id]);
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
    first.send({ type: "CONSULT_STARTED", consult: consult("US-001/step1/security-agent.1", 1) });
    const saved = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();

    const events: RunEvent[] = [];
    const resumed = createActor(machine, { input: { runId: "r" }, snapshot: saved });
    resumed.on("*", (e) => events.push(e as RunEvent));
    resumed.start();
    expect(Object.keys(resumed.getSnapshot().children)).toEqual(["US-001/step1/security-agent.1"]);
    resumed.send({ type: "RESUME" });
    expect(resumed.getSnapshot().children).toEqual({});
    expect(events.map((e) => e.type)).toEqual(["step.started"]);
    resumed.send({ type: "CONSULT_STARTED", consult: consult("US-001/step1/security-agent.1", 1) });
    resumed.send({ type: "STEP_DONE", result: passed });
    expect(resumed.getSnapshot().value).toBe("concluding");
  });
});
