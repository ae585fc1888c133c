import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { addJournalCalls, buildRunTree } from "./runTree.js";

const base = { runId: "r1", time: "2026-01-01T00:00:00.000Z" };
const step = (n: number): RunEvent => ({
  ...base,
  type: "step.started",
  storyId: "US-001",
  step: n,
  specialist: "dev",
  tools: 3,
});
const called = (key: string, tool = "memory__read_graph"): RunEvent => ({
  ...base,
  type: "tool.called",
  storyId: "US-001",
  step: 1,
  key,
  tool,
  argsDigest: "sha256:a",
  destructive: false,
});

describe("buildRunTree", () => {
  it("nests calls, refusals and turns under their step, with the gate on the story", () => {
    const tree = buildRunTree(
      "r1",
      [
        { ...base, type: "story.started", storyId: "US-001" },
        step(1),
        called("r1/US-001/step1/1"),
        {
          ...base,
          type: "tool.result",
          storyId: "US-001",
          step: 1,
          key: "r1/US-001/step1/1",
          tool: "memory__read_graph",
          isError: false,
          resultDigest: "sha256:b",
          durationMs: 12,
        },
        {
          ...base,
          type: "tool.refused",
          storyId: "US-001",
          step: 1,
          tool: "fs__delete",
          code: "not_in_repertoire",
          message: "not in the step's repertoire",
        },
        {
          ...base,
          type: "model.turn",
          storyId: "US-001",
          step: 1,
          turn: 1,
          provider: "openai",
          model: "m",
          inputTokens: 10,
          outputTokens: 2,
          cacheReadTokens: 8,
          costUnknown: true,
          latencyMs: 5,
          toolCalls: ["step_pass"],
        },
        { ...base, type: "step.finished", storyId: "US-001", step: 1, status: "passed", summary: "ok" },
        { ...base, type: "gate.finished", storyId: "US-001", passed: true, commands: 1, summary: "green" },
        { ...base, type: "story.finished", storyId: "US-001", status: "passed", summary: "done" },
      ],
      ["US-001", "US-002"],
    );
    expect(tree.stories.map((s) => [s.id, s.status])).toEqual([
      ["US-001", "passed"],
      ["US-002", "pending"],
    ]);
    const items = tree.stories[0]?.steps[0]?.items ?? [];
    expect(items.map((i) => (i.kind === "call" ? `${i.tool}:${i.status}` : i.kind))).toEqual([
      "memory__read_graph:ok",
      "fs__delete:refused",
      "turn",
    ]);
    // What the prompt cache served and that nobody priced the model: the turn's line says both.
    expect(items[2]).toMatchObject({ cacheReadTokens: 8, costUnknown: true });
    expect(tree.stories[0]?.gate).toMatchObject({ passed: true, summary: "green", commands: 1 });
    expect(tree.stories[0]?.steps[0]).toMatchObject({ tools: 3, attempts: 1, finishedAt: base.time });
  });

  it("replaces a step run again by a resume, counting its attempts", () => {
    const tree = buildRunTree("r1", [step(1), called("r1/US-001/step1/1"), step(1)], ["US-001"]);
    const steps = tree.stories[0]?.steps ?? [];
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ attempts: 2, status: "running", items: [] });
  });

  it("nests a consultation under its step, with the consultation's own calls", () => {
    const consult = "US-001/step1/security-agent.1";
    const tree = buildRunTree(
      "r1",
      [
        step(1),
        {
          ...base,
          type: "consult.started",
          storyId: "US-001",
          step: 1,
          consult,
          specialist: "security-agent",
          by: "dev",
          question: "is it safe?",
          depth: 1,
        },
        { ...(called("r1/US-001/step1/security-agent.1/1", "memory__search_nodes") as object), consult } as RunEvent,
        {
          ...base,
          type: "consult.done",
          storyId: "US-001",
          step: 1,
          consult,
          specialist: "security-agent",
          status: "passed",
          summary: "safe",
          calls: 1,
        },
        called("r1/US-001/step1/1"),
        { ...base, type: "run.paused" } as unknown as RunEvent,
      ],
      ["US-001"],
    );
    const first = tree.stories[0]?.steps[0];
    expect(first?.items?.map((i) => (i.kind === "call" ? i.tool : i.kind))).toEqual(["memory__read_graph"]);
    expect(first?.consults).toMatchObject([{ id: consult, status: "passed", summary: "safe", depth: 1 }]);
    expect(first?.consults?.[0]?.items?.map((i) => (i.kind === "call" ? i.tool : i.kind))).toEqual([
      "memory__search_nodes",
    ]);
    expect(tree.events.map((e) => e.type)).toEqual(["run.paused"]);
  });
});

describe("addJournalCalls", () => {
  it("shows a call the journal started before its event was written, as pending", () => {
    const tree = buildRunTree("r1", [step(1), called("r1/US-001/step1/1")], ["US-001"]);
    addJournalCalls(tree, [
      { key: "r1/US-001/step1/1", tool: "memory__read_graph", argsDigest: "a", at: base.time },
      { key: "r1/US-001/step1/2", tool: "slow__wait_for", argsDigest: "b", at: base.time },
    ]);
    const items = tree.stories[0]?.steps[0]?.items ?? [];
    expect(items.map((i) => (i.kind === "call" ? `${i.tool}:${i.status}` : i.kind))).toEqual([
      "memory__read_graph:pending",
      "slow__wait_for:pending",
    ]);
  });
});
