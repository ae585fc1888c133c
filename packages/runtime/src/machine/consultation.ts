import { setup } from "xstate";
import type { ConsultationState, ConsultEnd } from "../consult/ConsultFrame.js";

/** What the runtime tells the chief analyst (for the asking story) about consultations while a step's think() runs. */
export type ConsultEvent =
  | { type: "CONSULT_STARTED"; consult: ConsultationState }
  | { type: "CONSULT_DONE"; consult: ConsultationState; end: ConsultEnd };

/**
 * A consultation in progress, spawned by its story's actor as a child actor when a specialist asks
 * for one and stopped when it ends. Its only state is "consulting": it exists so that the run's
 * persisted snapshot holds the hierarchy (run → story step → consultation → nested consultation)
 * while one is under way, and only then (a run without consultations has no children to persist).
 */
export const consultation = setup({
  types: { context: {} as ConsultationState, input: {} as ConsultationState },
}).createMachine({
  id: "consultation",
  context: ({ input }) => input,
  initial: "consulting",
  states: { consulting: {} },
});
