import { toMeshflowError } from "@meshflow/core";
import type { ParallelChief } from "../machine/parallelChief.js";
import type { ParallelEvent } from "../machine/StoryEvents.js";
import type { PersistedActor } from "./PersistedActor.js";
import type { SessionMode } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";
import { preflightWork, storyWork } from "./workFor.js";

/**
 * Drives the parallel chief analyst until it stops: starts the work of every story slot that has
 * none in flight, reports each result back as it comes (one event at a time, each persisted before
 * its events are published). Never rejects: an error ends the run through `persisted.crashed`.
 */
export async function driveParallel(
  state: SessionState,
  mode: SessionMode,
  persisted: PersistedActor<ParallelChief>,
): Promise<void> {
  try {
    await drive(state, mode, persisted);
  } catch (error) {
    persisted.fail(error);
  }
}

type Done = { key: string; event: ParallelEvent };

async function drive(state: SessionState, mode: SessionMode, persisted: PersistedActor<ParallelChief>) {
  const { signal } = state.controller;
  const inFlight = new Map<string, Promise<Done>>();
  for (;;) {
    if (signal.aborted) {
      await state.runner?.drain();
      persisted.send({ type: "ABORT" });
      return;
    }
    const snapshot = persisted.actor.getSnapshot();
    if (snapshot.status !== "active") return;
    if (snapshot.value === "preflight") {
      const event = await state.aborts.until(preflightWork(state, mode));
      if (event && !signal.aborted) persisted.send(event as ParallelEvent);
      continue;
    }
    for (const slot of snapshot.context.slots) {
      const key = `${slot.story}:${slot.phase}:${slot.step}`;
      if (inFlight.has(key)) continue;
      const story = slot.story;
      inFlight.set(
        key,
        storyWork(state, slot.phase, slot).then(
          (event): Done => ({ key, event: { ...event, story } as ParallelEvent }),
          (error: unknown): Done => {
            const failure = toMeshflowError(error);
            return { key, event: { type: "FAILED", code: failure.code, message: failure.message } };
          },
        ),
      );
    }
    if (!inFlight.size) {
      persisted.send({
        type: "FAILED",
        code: "internal",
        message: `no work for state ${JSON.stringify(snapshot.value)}`,
      });
      return;
    }
    const done = await state.aborts.until(Promise.race(inFlight.values()));
    if (!done || signal.aborted) continue;
    inFlight.delete(done.key);
    persisted.send(done.event);
    // Once per story, let the event loop run (as the flat driver does): specialists may never do I/O.
    if (done.event.type === "CONCLUDED") await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
