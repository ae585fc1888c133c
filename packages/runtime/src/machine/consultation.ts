import { type ActorRefFrom, setup } from "xstate";
import type { ConsultationState, ConsultEnd } from "../consult/ConsultFrame.js";

/** What the runtime tells the chief analyst about consultations while a step's think() runs. */
export type ConsultEvent =
  | { type: "CONSULT_STARTED"; consult: ConsultationState }
  | { type: "CONSULT_DONE"; consult: ConsultationState; end: ConsultEnd };

/**
 * A consultation in progress, spawned by the chief analyst as a child actor when a specialist asks
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

/** A consultation child's actor. */
export type ConsultationActor = ActorRefFrom<typeof consultation>;

/** The state of a persisted snapshot as `run.resumed` names it: the machine's value and its consultations. */
export function describeSaved(saved: { value: unknown; children?: Record<string, unknown> } | undefined): string {
  if (!saved) return "start";
  const value = JSON.stringify(saved.value);
  const open = Object.keys(saved.children ?? {});
  return open.length ? `${value} in consultation ${open.join(", ")}` : value;
}
