import type { ModelTurnReport, RunEvent } from "@meshflow/core";
import { storyReports } from "@meshflow/runtime/host";
import { describe, expect, it } from "vitest";
import { costText } from "./costText.js";
import { formatEvent, formatTokens } from "./formatEvent.js";
import { summaryTable } from "./summaryTable.js";
import { TreeView } from "./TreeView.js";

const base = { time: "2026-01-01T00:00:00.000Z", runId: "r1" };

/** A story of one step whose model took `turns` (each with its own cost fields). */
function story(id: string, turns: Array<Partial<ModelTurnReport>>): RunEvent[] {
  return [
    { ...base, type: "story.started", storyId: id },
    { ...base, type: "step.started", storyId: id, step: 7, specialist: "development-agent", tools: 14 },
    ...turns.map(
      (t, i): RunEvent => ({
        ...base,
        type: "model.turn",
        storyId: id,
        step: 7,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        turn: i + 1,
        inputTokens: 1_000,
        outputTokens: 10,
        latencyMs: 5,
        toolCalls: [],
        ...t,
      }),
    ),
    { ...base, type: "step.finished", storyId: id, step: 7, status: "passed", summary: "done" },
    { ...base, type: "story.finished", storyId: id, status: "passed", summary: "done" },
  ];
}

describe("costText", () => {
  it("says a cost, an unknown cost, a partly known one, or nothing when nobody said", () => {
    expect(costText({ costUsd: 0.01234 })).toBe("$0.0123");
    expect(costText({ unpricedTurns: 2 })).toBe("cost unknown");
    expect(costText({ costUsd: 0.5, unpricedTurns: 1 })).toBe("≥ $0.5000 (1 turn of unknown cost)");
    expect(costText({})).toBe("");
  });
});

describe("the run's reports of cache and cost", () => {
  it("shows a turn's cache reads and writes, its cost, and the tool results trimmed before it", () => {
    const [turn] = story("US-1", [
      { cacheReadTokens: 900, cacheWriteTokens: 50, costUsd: 0.0012, trimmedResults: 2 },
    ]).filter((e) => e.type === "model.turn");
    expect(formatEvent(turn as RunEvent)).toBe(
      "US-1 step 7   model anthropic:claude-sonnet-4-5 turn 1: 1000 in (900 from cache, 50 to cache) + 10 out tokens, $0.0012 (2 old tool results trimmed), 5 ms",
    );
    const [unknown] = story("US-1", [{ costUnknown: true }]).filter((e) => e.type === "model.turn");
    expect(formatEvent(unknown as RunEvent)).toContain("+ 10 out tokens, cost unknown, 5 ms");
  });

  it("adds a cost column and total to the closing table; a model nobody priced shows unknown, never $0", () => {
    const reports = storyReports({ stories: ["US-1", "US-2"] }, [
      ...story("US-1", [
        { cacheWriteTokens: 900, costUsd: 0.004 },
        { cacheReadTokens: 900, costUsd: 0.001 },
      ]),
      ...story("US-2", [{ costUnknown: true }]),
    ]);
    const table = summaryTable(reports);
    expect(table[0]).toBe("story  status    steps  calls  tokens     cost  summary");
    expect(table[1]).toBe("US-1   ✓ passed      1      0   2,020  $0.0050  done");
    expect(table[2]).toBe("US-2   ✓ passed      1      0   1,010  unknown  done");
    expect(table[3]).toBe(
      "2 stories: 2 passed, 0 failed, 0 blocked, 0 skipped; 3,030 tokens (900 read from cache), ≥ $0.0050 (1 turn of unknown cost)",
    );
    expect(formatTokens(reports[0]?.tokens)).toBe(
      "2,000 in (900 from cache, 900 to cache) + 20 out tokens, 2 turns, $0.0050",
    );
  });

  it("shows a model's wait before a retry under its step until the turn goes on", () => {
    let screen = "";
    const view = new TreeView((text) => {
      screen += text;
    });
    const [started, step] = story("US-1", []);
    view.onEvent(started as RunEvent);
    view.onEvent(step as RunEvent);
    view.onModelWait({
      ...base,
      storyId: "US-1",
      step: 7,
      turn: 3,
      status: 429,
      waitMs: 2_000,
      retryAfter: true,
      attempt: 2,
    });
    view.onEvent({
      ...base,
      type: "tool.result",
      storyId: "US-1",
      step: 7,
      key: "k",
      tool: "t",
      isError: false,
      resultDigest: "d",
      durationMs: 1,
    });
    expect(screen).toContain("⏸ turn 3 429 rate limited: waiting 2.0 s (Retry-After), then try 2");
    const [, , turn] = story("US-1", [{}]);
    screen = "";
    view.onEvent({ ...(turn as RunEvent), turn: 3 } as RunEvent);
    view.stop();
    expect(screen).not.toContain("rate limited");
  });
});
