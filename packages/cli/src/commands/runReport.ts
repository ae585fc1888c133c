import { type RunEvent, type StepStatus, sumTokens, type TokenCount } from "@meshflow/core";
import type { RunRecord } from "@meshflow/runtime";
import { type Colors, plainColors, statusMark } from "../colors.js";
import { coded, type Output, plural } from "../output.js";
import { firstLine, formatTokens, gateLines } from "../runView/formatEvent.js";

/** A step as `flow status` shows it, rebuilt from the run's events. */
export interface StepReport {
  step: number;
  specialist: string;
  status: StepStatus | "running";
  summary: string;
  calls: number;
  refusals: Array<{ tool: string; code: string; message: string }>;
  /** Tokens of the step's model turns (present when a model thought). */
  tokens?: TokenCount;
}

/** A story as `flow status` shows it. */
export interface StoryReport {
  id: string;
  status: StepStatus | "skipped" | "running" | "pending";
  summary: string;
  steps: StepReport[];
  /** The gate's verdict; a failed one names the failing command and keeps its output's last lines. */
  gate?: { passed: boolean; summary: string; failed?: { command: string; tail: string } };
  /** Tokens of its steps' model turns (present when a model thought). */
  tokens?: TokenCount;
}

/** The run's effective status: `running` whose process is gone shows as `interrupted`. */
export function effectiveStatus(record: RunRecord, alive: (pid: number) => boolean): string {
  if (record.status === "running" && !alive(record.pid)) return "interrupted";
  return record.status;
}

/** Rebuilds per-story progress from a run's events (the last attempt of a step wins). */
export function storyReports(record: Pick<RunRecord, "stories">, events: readonly RunEvent[]): StoryReport[] {
  const stories = new Map<string, StoryReport>(
    record.stories.map((id) => [id, { id, status: "pending", summary: "", steps: [] }]),
  );
  const stepOf = (storyId: string, step: number) => stories.get(storyId)?.steps.findLast((s) => s.step === step);
  for (const e of events) {
    switch (e.type) {
      case "story.started": {
        const story = stories.get(e.storyId);
        if (story) Object.assign(story, { status: "running", steps: story.steps });
        break;
      }
      case "step.started": {
        const story = stories.get(e.storyId);
        if (!story) break;
        story.steps = story.steps.filter((s) => s.step !== e.step);
        story.steps.push({
          step: e.step,
          specialist: e.specialist,
          status: "running",
          summary: "",
          calls: 0,
          refusals: [],
        });
        break;
      }
      case "tool.called": {
        const step = stepOf(e.storyId, e.step);
        if (step) step.calls++;
        break;
      }
      case "model.turn": {
        const step = stepOf(e.storyId, e.step);
        if (!step) break;
        step.tokens ??= { input: 0, output: 0, turns: 0 };
        step.tokens.input += e.inputTokens;
        step.tokens.output += e.outputTokens;
        step.tokens.turns += 1;
        break;
      }
      case "tool.refused":
        stepOf(e.storyId, e.step)?.refusals.push({ tool: e.tool, code: e.code, message: e.message });
        break;
      case "step.finished": {
        const step = stepOf(e.storyId, e.step);
        if (step) Object.assign(step, { status: e.status, summary: e.summary });
        break;
      }
      case "gate.finished": {
        const story = stories.get(e.storyId);
        if (story) story.gate = { passed: e.passed, summary: e.summary, ...(e.failed ? { failed: e.failed } : {}) };
        break;
      }
      case "story.finished": {
        const story = stories.get(e.storyId);
        if (story) Object.assign(story, { status: e.status, summary: e.summary });
        break;
      }
      default:
        break;
    }
  }
  const reports = [...stories.values()];
  for (const story of reports) {
    const tokens = sumTokens(story.steps.map((s) => s.tokens));
    if (tokens) story.tokens = tokens;
  }
  return reports;
}

/** The mark of a story or step status (uncoloured, for one-line lists). */
export const MARK: Readonly<Record<string, string>> = {
  passed: "✓",
  failed: "✗",
  blocked: "⊘",
  skipped: "–",
  running: "…",
  pending: " ",
};

/** Prints stories with their steps, calls, refusals and gate, as `flow status` shows a run (inline or queued). */
export function printStories(output: Output, stories: readonly StoryReport[], c: Colors = plainColors): void {
  const tokens = (t: TokenCount | undefined) => (t ? c.dim(`  [${formatTokens(t)}]`) : "");
  for (const story of stories) {
    output.out(
      `\n${statusMark(story.status, c)} ${story.id}  ${story.status}${story.summary ? `: ${firstLine(story.summary)}` : ""}${tokens(story.tokens)}`,
    );
    for (const step of story.steps) {
      output.out(
        `    ${statusMark(step.status, c)} step ${step.step} ${step.specialist} · ${plural(step.calls, "call")} · ${step.status}${step.summary ? `: ${firstLine(step.summary)}` : ""}${tokens(step.tokens)}`,
      );
      for (const r of step.refusals)
        output.out(`        ${c.yellow(`refused ${r.tool}: ${coded(r.code, r.message)}`)}`);
    }
    if (story.gate) output.out(`    ${gateLines(story.gate, c, "      ").join("\n")}`);
  }
}
