import type { StepOutcome } from "@meshflow/core";

/** How deep consultations may nest: a step's consultation is depth 1, a consultation's own is depth 2. */
export const MAX_CONSULT_DEPTH = 2;

/** Options of `ctx.consult`. */
export interface ConsultOptions {
  /** Facts the consulted specialist should see besides the question (it gets them as `ctx.consultation.context`). */
  context?: unknown;
}

/** What `ctx.consult` returns: the consulted specialist's outcome and its answer (the outcome's summary). */
export interface ConsultAnswer {
  /** The consulted specialist. */
  specialist: string;
  outcome: StepOutcome;
  answer: string;
}

/** What a consulted specialist's `ctx.consultation` says about the consultation it runs in. */
export interface ConsultationInfo {
  /** The consultation's id in the run's events (`<story>/step<N>/<specialist>.<n>`). */
  id: string;
  /** The specialist that asked. */
  by: string;
  question: string;
  /** 1 when a step asked, 2 when a consultation asked. */
  depth: number;
  /** What the asking specialist passed as `options.context`. */
  context?: unknown;
}
