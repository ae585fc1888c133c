import {
  addTokens,
  processAlive,
  type RunEvent,
  type StepStatus,
  sumTokens,
  type TokenCount,
  turnTokens,
} from "@meshflow/core";
import type { RunRecord } from "../store/RunRecord.js";
import { addStepItem, type CallItem, type StepItem } from "./stepItems.js";

/** A step of a story report: its latest attempt, rebuilt from the run's events. */
export interface StepReport {
  step: number;
  specialist: string;
  status: StepStatus | "running";
  summary: string;
  /** Tool calls of this attempt (`tool.called` events). */
  calls: number;
  refusals: Array<{ tool: string; code: string; message: string }>;
  /** Tokens of the step's model turns (present when a model thought). */
  tokens?: TokenCount;
  /** The step's consultations (`ctx.consult`), in the order they started; absent when none. */
  consults?: ConsultReport[];
  /** With `detail`: tools in the step's repertoire. */
  tools?: number;
  /** With `detail`: when this attempt started and finished. */
  startedAt?: string;
  finishedAt?: string;
  /** With `detail`: how many times the step started in this run (more than 1 after a resume). */
  attempts?: number;
  /** With `detail`: the step's own calls, refusals and model turns, in event order. */
  items?: StepItem[];
}

/** A consultation of a step, rebuilt from its `consult.started` / `consult.done` events. */
export interface ConsultReport {
  id: string;
  specialist: string;
  by: string;
  question: string;
  /** 1 when the step asked, 2 when a consultation asked. */
  depth: number;
  status: StepStatus | "running";
  summary: string;
  calls: number;
  /** With `detail`: the consultation's calls, refusals and model turns, in event order. */
  items?: StepItem[];
  /** With `detail`: when the consultation started and ended. */
  startedAt?: string;
  finishedAt?: string;
}

/** A story's progress and outcome, rebuilt from the run's events. */
export interface StoryReport {
  id: string;
  /** `awaiting_approval`: a call of the story waits for a person's decision (`flow approve`). */
  status: StepStatus | "skipped" | "running" | "pending" | "awaiting_approval";
  summary: string;
  /** One entry per step, in the order the steps (last) started. */
  steps: StepReport[];
  /** The gate's verdict; a failed one names the failing command and keeps its output's last lines. */
  gate?: {
    passed: boolean;
    summary: string;
    failed?: { command: string; tail: string };
    /** With `detail`: how many verify commands ran. */
    commands?: number;
  };
  /** Tokens of its steps' model turns (present when a model thought). */
  tokens?: TokenCount;
  /** With `detail`: when the story (last) started and when it finished. */
  startedAt?: string;
  finishedAt?: string;
}

/**
 * A run's status as a reader should see it: `running` whose process is gone is `interrupted`.
 * `alive` tells whether a pid still runs (default: a signal-0 probe of this machine).
 */
export function effectiveStatus(
  record: Pick<RunRecord, "status" | "pid">,
  alive: (pid: number) => boolean = processAlive,
): string {
  if (record.status === "running" && !alive(record.pid)) return "interrupted";
  return record.status;
}

/**
 * The stories of a run from its events, as `flow status`, the gateway's `flow_run_status` and queued
 * runs report them: stories in `record.stories` order, each step once. A step that starts again (a
 * resumed run, a retried job) REPLACES its earlier entry: a resumed run never shows a step twice, nor
 * an abandoned attempt stuck on `running`.
 *
 * With `detail` (a run's page) each step and consultation also lists its calls, refusals and model
 * turns ({@link StepItem}s), each step its repertoire size and attempts, and each story, step and
 * consultation when it started and finished.
 *
 * @example
 * const { record, events } = await store.read(runId);
 * for (const story of storyReports(record, events)) console.log(story.id, story.status);
 */
export function storyReports(
  record: Pick<RunRecord, "stories">,
  events: readonly RunEvent[],
  options: { detail?: boolean } = {},
): StoryReport[] {
  const detail = options.detail === true;
  const stories = new Map<string, StoryReport>(
    record.stories.map((id) => [id, { id, status: "pending", summary: "", steps: [] }]),
  );
  const stepOf = (storyId: string, step: number) => stories.get(storyId)?.steps.findLast((s) => s.step === step);
  const calls = new Map<string, CallItem>();
  for (const e of events) {
    if (
      detail &&
      (e.type === "tool.called" || e.type === "tool.result" || e.type === "tool.refused" || e.type === "model.turn")
    ) {
      const step = stepOf(e.storyId, e.step);
      addStepItem(e, e.consult ? step?.consults?.find((c) => c.id === e.consult) : step, calls);
    }
    switch (e.type) {
      case "story.started": {
        const story = stories.get(e.storyId);
        if (!story) break;
        story.status = "running";
        if (detail) {
          story.startedAt = e.time;
          delete story.finishedAt;
        }
        break;
      }
      case "step.started": {
        const story = stories.get(e.storyId);
        if (!story) break;
        const earlier = story.steps.find((s) => s.step === e.step);
        story.steps = story.steps.filter((s) => s.step !== e.step);
        story.steps.push({
          step: e.step,
          specialist: e.specialist,
          status: "running",
          summary: "",
          calls: 0,
          refusals: [],
          ...(detail ? { tools: e.tools, startedAt: e.time, attempts: (earlier?.attempts ?? 0) + 1, items: [] } : {}),
        });
        break;
      }
      case "consult.started": {
        const step = stepOf(e.storyId, e.step);
        if (!step) break;
        step.consults = [...(step.consults ?? []).filter((c) => c.id !== e.consult)];
        step.consults.push({
          id: e.consult,
          specialist: e.specialist,
          by: e.by,
          question: e.question,
          depth: e.depth,
          status: "running",
          summary: "",
          calls: 0,
          ...(detail ? { items: [], startedAt: e.time } : {}),
        });
        break;
      }
      case "consult.done": {
        const consult = stepOf(e.storyId, e.step)?.consults?.find((c) => c.id === e.consult);
        if (consult)
          Object.assign(consult, {
            status: e.status,
            summary: e.summary,
            calls: e.calls,
            ...(detail ? { finishedAt: e.time } : {}),
          });
        break;
      }
      case "tool.called": {
        const step = stepOf(e.storyId, e.step);
        if (step && !e.consult) step.calls++;
        break;
      }
      case "model.turn": {
        const step = stepOf(e.storyId, e.step);
        if (!step) break;
        step.tokens = addTokens(step.tokens ?? { input: 0, output: 0, turns: 0 }, turnTokens(e));
        break;
      }
      case "approval.requested":
      case "approval.decided": {
        const story = stories.get(e.storyId);
        if (story && (story.status === "running" || story.status === "awaiting_approval"))
          story.status = e.type === "approval.requested" ? "awaiting_approval" : "running";
        break;
      }
      case "tool.refused":
        // A call refused because the run paused while it waited is no refusal of the step's.
        if (e.code === "approval_required") break;
        stepOf(e.storyId, e.step)?.refusals.push({ tool: e.tool, code: e.code, message: e.message });
        break;
      case "step.finished": {
        const step = stepOf(e.storyId, e.step);
        if (step)
          Object.assign(step, { status: e.status, summary: e.summary, ...(detail ? { finishedAt: e.time } : {}) });
        break;
      }
      case "gate.finished": {
        const story = stories.get(e.storyId);
        if (story)
          story.gate = {
            passed: e.passed,
            summary: e.summary,
            ...(e.failed ? { failed: e.failed } : {}),
            ...(detail ? { commands: e.commands } : {}),
          };
        break;
      }
      case "story.finished": {
        const story = stories.get(e.storyId);
        if (story)
          Object.assign(story, { status: e.status, summary: e.summary, ...(detail ? { finishedAt: e.time } : {}) });
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
