import { eventTime, type RunEvent, type StepStatus, type TokenCount } from "@meshflow/core";
import type { GateResult } from "../gate/runVerify.js";
import type { StepResult } from "../internal/StepRunner.js";
import type { ChiefEvent, ChiefServices } from "./chiefAnalyst.js";
import type { ConsultEvent } from "./consultation.js";

/** The parallel chief analyst's events: the flat machine's, with the story (plan index) each result is for. */
export type ParallelEvent =
  | Extract<ChiefEvent, { type: "PREFLIGHT_DONE" | "PREFLIGHT_FAILED" | "FAILED" | "RESUME" | "ABORT" }>
  | { type: "STEP_DONE"; story: number; result: StepResult }
  | { type: "GATE_DONE"; story: number; gate: GateResult }
  | { type: "CONCLUDED"; story: number; status: StepStatus; summary: string }
  | ConsultEvent;

/** Builds the story lifecycle events of the parallel chief analyst (same shapes as the flat machine's). */
export class StoryEvents {
  readonly #services: ChiefServices;

  constructor(services: ChiefServices) {
    this.#services = services;
  }

  #id(story: number): string {
    return this.#services.plan().stories[story]?.id ?? "";
  }

  storyStarted(runId: string, story: number): RunEvent {
    return { type: "story.started", time: eventTime(), runId, storyId: this.#id(story) };
  }

  skipped(runId: string, story: number): RunEvent {
    return {
      type: "story.finished",
      time: eventTime(),
      runId,
      storyId: this.#id(story),
      status: "skipped",
      summary: "passes is true",
    };
  }

  stepStarted(runId: string, story: number, step: number): RunEvent {
    const { specialist, tools } = this.#services.describeStep(story, step);
    return {
      type: "step.started",
      time: eventTime(),
      runId,
      storyId: this.#id(story),
      step: this.#services.plan().stories[story]?.steps[step] ?? 0,
      specialist,
      tools,
    };
  }

  stepFinished(runId: string, story: number, result: StepResult): RunEvent {
    return {
      type: "step.finished",
      time: eventTime(),
      runId,
      storyId: this.#id(story),
      step: result.step,
      status: result.status,
      summary: result.summary,
      calls: result.calls.length,
      ...(result.tokens ? { tokens: result.tokens } : {}),
    };
  }

  gateFinished(runId: string, story: number, gate: GateResult): RunEvent {
    const last = gate.results.at(-1);
    return {
      type: "gate.finished",
      time: eventTime(),
      runId,
      storyId: this.#id(story),
      passed: gate.passed,
      commands: gate.results.length,
      summary: gate.summary,
      ...(!gate.passed && last ? { failed: { command: last.name, tail: last.tail } } : {}),
    };
  }

  storyFinished(
    runId: string,
    story: number,
    status: StepStatus,
    summary: string,
    tokens: TokenCount | undefined,
  ): RunEvent {
    return {
      type: "story.finished",
      time: eventTime(),
      runId,
      storyId: this.#id(story),
      status,
      summary,
      ...(tokens ? { tokens } : {}),
    };
  }
}
