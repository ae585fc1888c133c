import { toMeshflowError } from "@meshflow/core";
import type { ChiefEvent } from "../machine/chiefAnalyst.js";
import type { PersistedActor } from "./PersistedActor.js";
import type { SessionMode } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";
import { workFor } from "./workFor.js";

/**
 * Drives the machine until it stops: does the work its state asks for, reports the result back
 * (which persists the next state). Never rejects: an error ends the run through `persisted.crashed`.
 */
export async function driveMachine(state: SessionState, mode: SessionMode, persisted: PersistedActor): Promise<void> {
  try {
    await drive(state, mode, persisted);
  } catch (error) {
    persisted.fail(error);
  }
}

async function drive(state: SessionState, mode: SessionMode, persisted: PersistedActor): Promise<void> {
  const { signal } = state.controller;
  let lastStory = -1;
  for (;;) {
    if (signal.aborted) {
      // The calls in flight finish and are journaled before the run is marked aborted, so
      // `run.finished` is the last event and a resume replays them.
      await state.runner?.drain();
      persisted.send({ type: "ABORT" });
      return;
    }
    const snapshot = persisted.actor.getSnapshot();
    if (snapshot.status !== "active") return;
    if (snapshot.context.story !== lastStory) {
      // Once per story, let the event loop run: Ctrl-C, timers and the garbage collector's idle
      // work must not wait for a run whose specialists never do I/O.
      lastStory = snapshot.context.story;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal.aborted) continue;
    }
    const pending = workFor(state, mode, snapshot);
    if (!pending) {
      persisted.send({
        type: "FAILED",
        code: "internal",
        message: `no work for state ${JSON.stringify(snapshot.value)}`,
      });
      return;
    }
    let event: ChiefEvent | undefined;
    try {
      // An abort does not wait for a think() that ignores its signal.
      event = await state.aborts.until(pending);
    } catch (error) {
      const failure = toMeshflowError(error);
      event = { type: "FAILED", code: failure.code, message: failure.message };
    }
    if (event && !signal.aborted) persisted.send(event);
  }
}
