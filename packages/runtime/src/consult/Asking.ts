import { type BudgetSpent, MeshflowError } from "@meshflow/core";
import type { ConsultRecord, StepResult } from "../internal/StepResult.js";
import type { CallLog } from "../internal/toolCall.js";
import type { PlannedStory } from "../RunPlan.js";
import type { ConsultAnswer, ConsultationInfo, ConsultOptions } from "../specialists/Consultation.js";
import type { Specialist, StepMemory } from "../specialists/defineSpecialist.js";
import type { ConsultFrame } from "./ConsultFrame.js";
import { allowedConsults, checkConsult } from "./consultRules.js";

/** What an asking needs of the step runner (an interface, so the runner and the asking import one way). */
export interface ConsultationRunner {
  /** True when a specialist of that name is loaded. */
  knows(name: string): boolean;
  /** Runs a consultation as a child step of the planned story. */
  runConsultation(
    planned: PlannedStory,
    stepIndex: number,
    memory: readonly StepMemory[],
    frame: ConsultFrame,
  ): Promise<StepResult>;
}

/**
 * The asking side of one think() (a step's or a consultation's): `ctx.consult`, checked against the
 * rules, numbered in the order it is called (the numbers name the consultations' call keys, so a
 * resumed run that asks again in the same order replays the same journal entries).
 */
export class Asking {
  /** The consultations that ended, in that order. */
  readonly records: ConsultRecord[] = [];
  readonly #runner: ConsultationRunner;
  readonly #planned: PlannedStory;
  readonly #stepIndex: number;
  readonly #memory: readonly StepMemory[];
  readonly #specialist: Specialist;
  readonly #frame: ConsultFrame | undefined;
  readonly #log: CallLog;
  readonly #spent: BudgetSpent;
  #asked = 0;

  constructor(
    runner: ConsultationRunner,
    planned: PlannedStory,
    stepIndex: number,
    memory: readonly StepMemory[],
    specialist: Specialist,
    frame: ConsultFrame | undefined,
    log: CallLog,
    spent: BudgetSpent,
  ) {
    this.#log = log;
    this.#spent = spent;
    this.#runner = runner;
    this.#planned = planned;
    this.#stepIndex = stepIndex;
    this.#memory = memory;
    this.#specialist = specialist;
    this.#frame = frame;
  }

  /** The specialists this think() may consult. */
  allowed(): string[] {
    return allowedConsults(this.#specialist, this.#planned.story);
  }

  /** `ctx.consultation` of a consulted think(). */
  info(frame: ConsultFrame): ConsultationInfo {
    return {
      id: frame.id,
      by: frame.by,
      question: frame.question,
      depth: frame.depth,
      ...(frame.context === undefined ? {} : { context: frame.context }),
    };
  }

  /** `ctx.consult`. */
  readonly consult = async (target: string, question: string, options: ConsultOptions = {}): Promise<ConsultAnswer> => {
    const story = this.#planned.story;
    const step = story.mavenSteps[this.#stepIndex] ?? 0;
    const chain = this.#frame?.chain ?? [this.#specialist.name];
    const by = this.#specialist.name;
    if (typeof question !== "string" || !question.trim())
      throw new MeshflowError(
        "consult_refused",
        `${by} asked ${target} nothing in ${story.id} step ${step}: a question is required`,
      );
    checkConsult({
      storyId: story.id,
      step,
      chain,
      allowed: this.allowed(),
      target,
      known: this.#runner.knows(target),
    });
    this.#asked += 1;
    const keyBase = `${this.#frame?.keyBase ?? `step${step}`}/${target}.${this.#asked}`;
    const frame: ConsultFrame = {
      id: `${story.id}/${keyBase}`,
      keyBase,
      storyId: story.id,
      step,
      specialist: target,
      by,
      question,
      depth: chain.length,
      chain: [...chain, target],
      ...(options.context === undefined ? {} : { context: options.context }),
      spent: this.#spent,
    };
    const result = await this.#runner.runConsultation(this.#planned, this.#stepIndex, this.#memory, frame);
    // What a consultation may have written counts as a write of the asking step, at the point it
    // returned: a verify command the step ran before it is not reused by the gate (seq 0: no call of
    // the step's own).
    if (result.writes?.length) this.#log.writes.push({ seq: 0, endedAt: this.#log.seq });
    this.records.push({
      id: frame.id,
      specialist: target,
      question,
      status: result.status,
      summary: result.summary,
      calls: result.calls.length,
    });
    return {
      specialist: target,
      outcome: { status: result.status, summary: result.summary, evidence: result.evidence },
      answer: result.summary,
    };
  };
}
