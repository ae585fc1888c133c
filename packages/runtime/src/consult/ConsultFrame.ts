import { type BudgetSpent, eventTime, type RunEvent, type TokenCount } from "@meshflow/core";

/** One consultation as the runtime runs it: where, who asked whom, and the key space of its calls. */
export interface ConsultFrame {
  /** Unique in the run: `<story>/<keyBase>`, e.g. `US-001/step7/security-agent.1`. */
  id: string;
  /** The part of its calls' idempotency keys after the story: `step7/security-agent.1`. */
  keyBase: string;
  storyId: string;
  step: number;
  /** The consulted specialist. */
  specialist: string;
  /** The specialist that asked. */
  by: string;
  question: string;
  /** 1 when the step asked, 2 when a consultation asked. */
  depth: number;
  /** The step's specialist, then every consulted one down to this consultation's. */
  chain: readonly string[];
  /** What the asking specialist passed as `options.context`. */
  context?: unknown;
  /** The model budget shared with the asking step. */
  spent: BudgetSpent;
}

/** What of a consultation the chief analyst holds (its child actor's data) and its events report. */
export type ConsultationState = Pick<
  ConsultFrame,
  "id" | "keyBase" | "storyId" | "step" | "specialist" | "by" | "question" | "depth"
>;

/** What a consultation ended with, as its `consult.done` event reports it. */
export interface ConsultEnd {
  status: "passed" | "failed" | "blocked";
  summary: string;
  calls: number;
  tokens?: TokenCount;
}

/** Where the runtime reports consultations: the chief analyst's machine in a run (persisted first). */
export interface ConsultSink {
  started(frame: ConsultFrame): void;
  done(frame: ConsultFrame, end: ConsultEnd): void;
}

/** The `consult.started` event of a consultation. */
export function consultStartedEvent(runId: string, frame: ConsultationState): RunEvent {
  return {
    type: "consult.started",
    time: eventTime(),
    runId,
    storyId: frame.storyId,
    step: frame.step,
    consult: frame.id,
    specialist: frame.specialist,
    by: frame.by,
    question: frame.question,
    depth: frame.depth,
  };
}

/** The `consult.done` event of a consultation. */
export function consultDoneEvent(
  runId: string,
  frame: Pick<ConsultFrame, "id" | "storyId" | "step" | "specialist">,
  end: ConsultEnd,
): RunEvent {
  return {
    type: "consult.done",
    time: eventTime(),
    runId,
    storyId: frame.storyId,
    step: frame.step,
    consult: frame.id,
    specialist: frame.specialist,
    status: end.status,
    summary: end.summary,
    calls: end.calls,
    ...(end.tokens ? { tokens: end.tokens } : {}),
  };
}

/** A sink that only publishes the events (runs without a machine: the specialist harness). */
export function eventSink(runId: string, emit: (event: RunEvent) => void): ConsultSink {
  return {
    started: (frame) => emit(consultStartedEvent(runId, frame)),
    done: (frame, end) => emit(consultDoneEvent(runId, frame, end)),
  };
}
