import type { ConsultationState, ConsultFrame, ConsultSink } from "../consult/ConsultFrame.js";
import type { ConsultEvent } from "../machine/consultation.js";
import type { PersistedActor } from "./PersistedActor.js";

/** What the machine keeps of a consultation (no budget, no context: those stay in memory). */
function stateOf(frame: ConsultFrame): ConsultationState {
  const { id, keyBase, storyId, step, specialist, by, question, depth } = frame;
  return { id, keyBase, storyId, step, specialist, by, question, depth };
}

/**
 * Consultations reported to the asking story's actor: each one's start and end is a transition,
 * persisted before its `consult.started` / `consult.done` event is published. Nothing is sent to a
 * machine that has stopped (an aborted run whose consultation finishes afterwards).
 */
export function machineConsults(persisted: PersistedActor, indexOf: (storyId: string) => number): ConsultSink {
  const send = (event: ConsultEvent) => {
    if (persisted.actor.getSnapshot().status !== "active") return;
    const story = persisted.storyOf(indexOf(event.consult.storyId));
    if (story) persisted.sendStory(story, event);
  };
  return {
    started: (frame) => send({ type: "CONSULT_STARTED", consult: stateOf(frame) }),
    done: (frame, end) => send({ type: "CONSULT_DONE", consult: stateOf(frame), end }),
  };
}
