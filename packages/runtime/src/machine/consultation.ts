import type { RunEvent } from "@meshflow/core";
import { type ActorRefFrom, setup } from "xstate";
import { type ConsultEnd, consultDoneEvent, consultStartedEvent } from "../consult/ConsultFrame.js";

/** A consultation as the chief analyst's child actor holds it (the data of a `ConsultFrame`). */
export interface ConsultationState {
  /** Also the child actor's id, e.g. `US-001/step7/security-agent.1` (a nested one extends its asker's). */
  id: string;
  keyBase: string;
  storyId: string;
  step: number;
  specialist: string;
  by: string;
  question: string;
  depth: number;
}

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

/** The `consult.started` event of a CONSULT_STARTED. */
export function consultStarted(runId: string, consult: ConsultationState): RunEvent {
  return consultStartedEvent(runId, { ...consult, chain: [] });
}

/** The `consult.done` event of a CONSULT_DONE. */
export function consultDone(runId: string, consult: ConsultationState, end: ConsultEnd): RunEvent {
  return consultDoneEvent(runId, consult, end);
}

/** The state of a persisted snapshot as `run.resumed` names it: the machine's value and its consultations. */
export function describeSaved(saved: { value: unknown; children?: Record<string, unknown> } | undefined): string {
  if (!saved) return "start";
  const value = JSON.stringify(saved.value);
  const open = Object.keys(saved.children ?? {});
  return open.length ? `${value} in consultation ${open.join(", ")}` : value;
}
