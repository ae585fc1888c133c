import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { buildMeshGraph } from "./meshGraph.js";
import { at, reports, storyEvents } from "./testRun.js";

describe("buildMeshGraph", () => {
  it("draws the chief, specialists, servers and consultations with counts, errors and p50", () => {
    const consult = "US-1/step1/quality-agent.1";
    const base = { runId: "r1", storyId: "US-1", step: 1 };
    const events = [
      ...storyEvents("US-1", 0, 1000).slice(0, 4),
      {
        ...base,
        time: at(100),
        type: "consult.started",
        consult,
        specialist: "quality-agent",
        by: "development-agent",
        question: "ok?",
        depth: 1,
      },
      {
        ...base,
        consult,
        time: at(110),
        type: "tool.called",
        key: "r1/US-1/step1/2",
        tool: "slow__append_line",
        argsDigest: "d",
        destructive: false,
      },
      {
        ...base,
        consult,
        time: at(110),
        type: "tool.result",
        key: "r1/US-1/step1/2",
        tool: "slow__append_line",
        isError: false,
        resultDigest: "r",
        durationMs: 30,
      },
      {
        ...base,
        time: at(300),
        type: "consult.done",
        consult,
        specialist: "quality-agent",
        status: "passed",
        summary: "yes",
        calls: 1,
      },
      ...storyEvents("US-1", 0, 1000).slice(4),
      ...storyEvents("US-2", 1000, 2000, { callError: true, status: "failed" }),
    ] as RunEvent[];
    const graph = buildMeshGraph(reports(["US-1", "US-2"], events));
    expect(graph.nodes.map((n) => n.id)).toEqual([
      "chief",
      "specialist:development-agent",
      "server:memory",
      "specialist:quality-agent",
      "server:slow",
    ]);
    const edge = (id: string) => graph.edges.find((e) => e.id === id);
    expect(edge("chief->specialist:development-agent")).toMatchObject({ kind: "route", count: 2, errors: 1 });
    expect(edge("specialist:development-agent->server:memory")).toMatchObject({
      kind: "tools",
      count: 2,
      errors: 1,
      p50Ms: 40,
      stories: ["US-1", "US-2"],
    });
    expect(edge("specialist:development-agent->specialist:quality-agent")).toMatchObject({
      kind: "consult",
      count: 1,
      errors: 0,
      p50Ms: 200,
      stories: ["US-1"],
    });
    // The consulted specialist's own call goes from it, not from the step's specialist.
    expect(edge("specialist:quality-agent->server:slow")).toMatchObject({ count: 1, p50Ms: 30 });
  });
});
