import type { RunEvent } from "@meshflow/core";
import { storyReports } from "@meshflow/runtime/host";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { plainColors, stripColors } from "../colors.js";
import { formatEvent } from "./formatEvent.js";
import { summaryTable } from "./summaryTable.js";
import { TreeView } from "./TreeView.js";

const colors = pc.createColors(true);

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
    expect(events.map((e) => formatEvent(e))).toEqual([
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

  it("colours marks, refusals and ids when asked, and only then", () => {
    const lines = events.map((e) => formatEvent(e, colors) ?? "");
    expect(lines[6]).toContain(colors.red("✗"));
    expect(lines[5]).toContain(colors.yellow("refused m__b: not_in_repertoire: no"));
    expect(lines[0]).toContain(colors.dim("r1"));
    expect(lines.map(stripColors)).toEqual(events.map((e) => formatEvent(e)));
    expect(events.map((e) => formatEvent(e, plainColors)).join("")).not.toContain("\x1b[");
  });

  it("shows a failed gate's first summary line, then the failing command's last lines", () => {
    const tail = Array.from({ length: 20 }, (_, i) => `line ${i + 11}`).join("\n");
    const line = formatEvent({
      ...base,
      type: "gate.finished",
      storyId: "US-1",
      passed: false,
      commands: 1,
      summary: `verify "test" failed: exit code 1\n  | ${tail.replace(/\n/g, "\n  | ")}`,
      failed: { command: "test", tail },
    });
    const shown = (line ?? "").split("\n");
    expect(shown[0]).toBe('US-1 gate ✗ failed: verify "test" failed: exit code 1');
    expect(shown.slice(1)).toEqual(tail.split("\n").map((l) => `    | ${l}`));
  });
});

describe("the model's words", () => {
  const turn = (n: number, text?: string): RunEvent => ({
    ...base,
    type: "model.turn",
    storyId: "US-1",
    step: 1,
    provider: "openai",
    model: "m",
    turn: n,
    inputTokens: 10,
    outputTokens: 5,
    latencyMs: 7,
    toolCalls: ["m__a"],
    ...(text ? { text } : {}),
  });

  it("shows the latest turn's text under the running step, and leaves it out of the finished block", () => {
    // The live view showed tokens and tool names only: what the model was doing was not on the terminal.
    let screen = "";
    const view = new TreeView((text) => {
      screen += text;
    });
    for (const e of events.slice(0, 3)) view.onEvent(e);
    view.onEvent(turn(1, "Reading the task list first."));
    expect(screen).toContain("      “Reading the task list first.”");
    view.onEvent(turn(2, "Now writing the status field."));
    const lastDraw = screen.slice(screen.lastIndexOf("\x1b[J"));
    expect(lastDraw).toContain("“Now writing the status field.”");
    expect(lastDraw).not.toContain("Reading the task list first.");
    for (const e of events.slice(3)) view.onEvent(e);
    view.stop();
    expect(screen.slice(screen.lastIndexOf("US-1 ✗ failed"))).not.toContain("“");
  });

  it("shows a turn's text while it streams, drawn with the next frame, until the turn's event", () => {
    let screen = "";
    const view = new TreeView((text) => {
      screen += text;
    });
    const lastDraw = () => screen.slice(screen.lastIndexOf("\x1b[J"));
    const saying = (turnNo: number, text: string) =>
      view.onModelText({ runId: "r1", storyId: "US-1", step: 1, turn: turnNo, delta: text.slice(-3), text });
    for (const e of events.slice(0, 3)) view.onEvent(e);
    view.onEvent(turn(1, "Reading the task list first."));
    const drawn = screen;
    saying(2, "Now writ");
    saying(2, "Now writing the\nstatus");
    // Kept, not drawn: however fast the text comes, the view draws at its own pace.
    expect(screen).toBe(drawn);
    view.onEvent(events[4] as RunEvent);
    expect(lastDraw()).toContain("      “Now writing the status▌");
    expect(lastDraw()).not.toContain("Reading the task list first.");
    // A long text shows its end, where it grows.
    saying(2, `${"word ".repeat(60)}END`);
    view.onEvent(events[4] as RunEvent);
    const line = lastDraw().match(/ {6}“…[a-z ]+END▌/)?.[0] ?? "";
    expect(line.length).toBeGreaterThan(80);
    expect(line.length).toBeLessThan((process.stdout.columns || 120) - 1);
    // The turn's event ends it: its shortened text, as for a turn that did not stream.
    view.onEvent(turn(2, "Now writing the status field."));
    expect(lastDraw()).toContain("“Now writing the status field.”");
    expect(lastDraw()).not.toContain("▌");
    for (const e of events.slice(5, 7)) view.onEvent(e);
    saying(3, "too late");
    view.onEvent(events[7] as RunEvent);
    view.stop();
    expect(screen.slice(screen.lastIndexOf("US-1 ✗ failed"))).not.toContain("too late");
  });

  it("puts each turn's text on its line off a terminal", () => {
    expect(formatEvent(turn(3, "Tests pass; finishing."))).toBe(
      "US-1 step 1   model openai:m turn 3: 10 in + 5 out tokens, 7 ms → m__a: “Tests pass; finishing.”",
    );
    expect(formatEvent(turn(4))).toBe("US-1 step 1   model openai:m turn 4: 10 in + 5 out tokens, 7 ms → m__a");
  });
});

describe("summaryTable", () => {
  const finished = (id: string, status: "passed" | "failed", summary: string, tokens?: number): RunEvent[] => [
    { ...base, type: "story.started", storyId: id },
    { ...base, type: "step.started", storyId: id, step: 1, specialist: "development-agent", tools: 2 },
    { ...base, type: "tool.called", storyId: id, step: 1, key: "k", tool: "m__a", argsDigest: "d", destructive: false },
    ...(tokens
      ? [
          {
            ...base,
            type: "model.turn" as const,
            storyId: id,
            step: 1,
            provider: "openai",
            model: "m",
            turn: 1,
            inputTokens: tokens,
            outputTokens: 1,
            latencyMs: 1,
            toolCalls: [],
          },
        ]
      : []),
    { ...base, type: "step.finished", storyId: id, step: 1, status, summary },
    { ...base, type: "story.finished", storyId: id, status, summary },
  ];

  it("gives one line per story and the totals, plural forms right", () => {
    const stories = storyReports({ stories: ["US-1", "US-22"] }, [
      ...finished("US-1", "passed", "all steps passed; no verify commands"),
      ...finished("US-22", "failed", `verify "test" failed: exit code 1\n  | ${"x".repeat(100)}`),
    ]);
    expect(summaryTable(stories)).toEqual([
      "story  status    steps  calls  summary",
      "US-1   ✓ passed      1      1  all steps passed; no verify commands",
      'US-22  ✗ failed      1      1  verify "test" failed: exit code 1',
      "2 stories: 1 passed, 1 failed, 0 blocked, 0 skipped",
    ]);
    const one = storyReports({ stories: ["US-1"] }, finished("US-1", "passed", "ok"));
    expect(summaryTable(one).at(-1)).toBe("1 story: 1 passed, 0 failed, 0 blocked, 0 skipped");
  });

  it("adds a tokens column and total when a model thought, and shortens long summaries", () => {
    const stories = storyReports({ stories: ["US-1", "US-2"] }, [
      ...finished("US-1", "passed", "s".repeat(80), 1233),
      ...finished("US-2", "passed", "ok"),
    ]);
    const table = summaryTable(stories, colors).map(stripColors);
    expect(table[0]).toBe("story  status    steps  calls  tokens  summary");
    expect(table[1]).toBe(`US-1   ✓ passed      1      1   1,234  ${"s".repeat(59)}…`);
    expect(table[2]).toBe("US-2   ✓ passed      1      1          ok");
    expect(table[3]).toBe("2 stories: 2 passed, 0 failed, 0 blocked, 0 skipped; 1,234 tokens");
    expect(summaryTable(stories, colors)[1]).toContain(colors.green("✓"));
  });
});
