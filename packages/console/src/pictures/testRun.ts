import type { RunEvent } from "@meshflow/core";
import { type StoryReport, storyReports } from "@meshflow/runtime/host";

// A small run for the pictures' tests: events as a run records them, turned into detailed reports.

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
/** The time `ms` after the run started. */
export const at = (ms: number): string => new Date(T0 + ms).toISOString();
/** Epoch ms of `at(ms)`. */
export const t = (ms: number): number => T0 + ms;

/** One story of one step from `from` to `to` with a call of `tool` in the middle. */
export function storyEvents(
  storyId: string,
  from: number,
  to: number,
  options: { specialist?: string; tool?: string; status?: "passed" | "failed"; callError?: boolean } = {},
): RunEvent[] {
  const base = { runId: "r1", storyId };
  const key = `r1/${storyId}/step1/1`;
  const tool = options.tool ?? "memory__read_graph";
  const status = options.status ?? "passed";
  return [
    { ...base, time: at(from), type: "story.started" },
    {
      ...base,
      time: at(from),
      type: "step.started",
      step: 1,
      specialist: options.specialist ?? "development-agent",
      tools: 3,
    },
    { ...base, time: at(from + 10), type: "tool.called", step: 1, key, tool, argsDigest: "d", destructive: false },
    {
      ...base,
      time: at(from + 10),
      type: "tool.result",
      step: 1,
      key,
      tool,
      isError: options.callError === true,
      resultDigest: "r",
      durationMs: 40,
    },
    { ...base, time: at(to - 5), type: "step.finished", step: 1, status, summary: "done" },
    { ...base, time: at(to), type: "story.finished", status, summary: "done" },
  ] as RunEvent[];
}

/** Detailed reports of `events` for stories `ids`. */
export function reports(ids: string[], events: RunEvent[]): StoryReport[] {
  return storyReports({ stories: ids }, events, { detail: true });
}
