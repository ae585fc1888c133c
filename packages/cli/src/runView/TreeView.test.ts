import type { RunEvent } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { formatEvent } from "./formatEvent.js";
import { TreeView } from "./TreeView.js";

const base = { time: "2026-01-01T00:00:00.000Z", runId: "r1" };
const events: RunEvent[] = [
  { ...base, type: "run.started", prd: "prd.json", stories: ["US-1"] },
  { ...base, type: "story.started", storyId: "US-1" },
  { ...base, type: "step.started", storyId: "US-1", step: 1, specialist: "development-agent", tools: 9 },
  {
    ...base,
    type: "tool.called",
    storyId: "US-1",
    step: 1,
    key: "r1/US-1/step1/1",
    tool: "m__a",
    argsDigest: "d",
    destructive: false,
  },
  {
    ...base,
    type: "tool.result",
    storyId: "US-1",
    step: 1,
    key: "r1/US-1/step1/1",
    tool: "m__a",
    isError: false,
    resultDigest: "d",
    durationMs: 3,
  },
  { ...base, type: "tool.refused", storyId: "US-1", step: 1, tool: "m__b", code: "not_in_repertoire", message: "no" },
  { ...base, type: "step.finished", storyId: "US-1", step: 1, status: "failed", summary: "call 2 failed" },
  { ...base, type: "story.finished", storyId: "US-1", status: "failed", summary: "step 1 failed: call 2 failed" },
  { ...base, type: "run.finished", status: "failed", passed: 0, failed: 1, blocked: 0 },
];

describe("TreeView", () => {
  it("leaves one block per finished story with its steps, call counts and refusals", () => {
    let screen = "";
    const view = new TreeView((text) => {
      screen += text;
    });
    for (const e of events) view.onEvent(e);
    view.stop();
    // Redraws erase what they drew (cursor up + clear): keep what remains after the last erase of each block.
    const finalText = screen
      .split("\x1b[")
      .map((part) => part.replace(/^\d+A|^J/, ""))
      .join("");
    expect(finalText).toContain(
      "US-1 ✗ failed: step 1 failed: call 2 failed\n  ✗ step 1 development-agent · 1 call · failed: call 2 failed\n      refused m__b: not_in_repertoire\n",
    );
    expect(finalText).toContain("run r1 failed: 0 passed, 1 failed, 0 blocked");
  });
});

describe("formatEvent", () => {
  it("gives one plain line per event", () => {
    expect(events.map(formatEvent)).toEqual([
      "run r1 started: 1 story from prd.json",
      "US-1 started",
      "US-1 step 1 → development-agent (9 tools)",
      "US-1 step 1   call m__a (r1/US-1/step1/1)",
      "US-1 step 1   ok m__a 3 ms",
      "US-1 step 1   refused m__b: not_in_repertoire: no",
      "US-1 step 1 ✗ failed: call 2 failed",
      "US-1 ✗ failed: step 1 failed: call 2 failed",
      "run r1 failed: 0 passed, 1 failed, 0 blocked",
    ]);
  });
});
