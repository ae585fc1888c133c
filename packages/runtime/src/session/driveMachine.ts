import { toMeshflowError } from "@meshflow/core";
import { type ChiefEvent, type StoryConcluded, storyActorId } from "../machine/chiefAnalyst.js";
import type { StoryActor, StoryEvent } from "../machine/storyActor.js";
import type { PersistedActor } from "./PersistedActor.js";
import type { SessionMode } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";
import { preflightWork, storyWork } from "./workFor.js";

/**
 * Drives the chief analyst until it stops: starts the work of every story in progress that has none
 * in flight (one story by default, up to `--parallel n`), and sends each result, as it comes, to its
 * story's actor (one event at a time, each persisted before its events are published). Never
 * rejects: an error ends the run through `persisted.crashed`.
 */
export async function driveMachine(state: SessionState, mode: SessionMode, persisted: PersistedActor): Promise<void> {
  try {
    await drive(state, mode, persisted);
  } catch (error) {
    persisted.fail(error);
  }
}

/** The work of one story in flight: the actor working the story, and the promise of its result. */
interface Work {
  actor: StoryActor;
  result: Promise<StoryEvent | StoryConcluded>;
  /** The result with its work, for a race between stories (made only when several are in flight). */
  settled?: Promise<Done>;
}

/**
 * A finished piece of work: a step's or the gate's result for the story's actor, or for the chief
 * analyst the story's conclusion or a failure.
 */
type Done =
  | { work: Work; event: StoryEvent | StoryConcluded; failure?: undefined }
  | { work: Work; failure: ChiefEvent };

async function drive(state: SessionState, mode: SessionMode, persisted: PersistedActor): Promise<void> {
  const { signal } = state.controller;
  /** Work in flight, at most one per story actor: a story waits for the result of its phase. */
  const inFlight: Work[] = [];
  /** The ids of the chief's story actors, by position in its `actors`. */
  const ids: string[] = [];
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
    if (snapshot.value === "preflight") {
      const event = await state.aborts.until(preflightWork(state, mode));
      if (event && !signal.aborted) persisted.send(event);
      // Let the event loop run before the first story, as after each one (see below).
      await new Promise<void>((resolve) => setImmediate(resolve));
      continue;
    }
    // Every story in progress has its work in flight (a free story actor has no story).
    const { actors } = snapshot.context;
    const children: Partial<Record<string, StoryActor>> = snapshot.children;
    for (let k = 0; k < actors.length; k++) {
      if (actors[k] === null) continue;
      ids[k] ??= storyActorId(k);
      const actor = children[ids[k] ?? ""];
      if (!actor || hasWork(inFlight, actor)) continue;
      const { value, context } = actor.getSnapshot();
      if (value !== "free") inFlight.push({ actor, result: storyWork(state, value, context) });
    }
    if (!inFlight.length) {
      persisted.send({
        type: "FAILED",
        code: "internal",
        message: `no work for state ${JSON.stringify(snapshot.value)}`,
      });
      return;
    }
    // An abort does not wait for a think() that ignores its signal.
    let done: Done | undefined;
    const gate = state.approvals;
    const single = inFlight.length === 1 && !gate ? inFlight[0] : undefined;
    if (gate) {
      // A call parked for approval wakes the loop: once every story in flight waits (now, or after the
      // others finished), the run pauses.
      if (pauseIfStuck(state, inFlight)) continue;
      done = await state.aborts.until(Promise.race([race(inFlight), gate.changed().then(() => undefined)]));
    } else if (single)
      try {
        const event = await state.aborts.until(single.result);
        done = event && { work: single, event };
      } catch (error) {
        done = { work: single, failure: failed(error) };
      }
    else done = await state.aborts.until(race(inFlight));
    if (!done || signal.aborted) continue;
    inFlight.splice(inFlight.indexOf(done.work), 1);
    if (done.failure) persisted.send(done.failure);
    else if (done.event.type === "CONCLUDED") {
      persisted.send(done.event);
      // Once per story, let the event loop run: Ctrl-C, timers and the garbage collector's idle work
      // must not wait for a run whose specialists never do I/O.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } else persisted.sendStory(done.work.actor, done.event);
  }
}

/** Pauses the run (`approval_required`) when every story in flight waits for a person's approval. */
function pauseIfStuck(state: SessionState, inFlight: readonly Work[]): boolean {
  const gate = state.approvals;
  const ids = inFlight.map((work) => state.storyOf(work.actor.getSnapshot().context.story).id);
  if (!gate?.stuck(ids)) return false;
  const pending = gate.parked().map(({ key, storyId, tool, rule }) => ({ key, storyId, tool, rule }));
  const calls = pending.map((p) => `${p.storyId}: ${p.tool} (${p.key})`).join("; ");
  state.pause("approval_required", `every story in flight waits for a person's approval: ${calls}`, pending);
  return true;
}

function hasWork(inFlight: readonly Work[], actor: StoryActor): boolean {
  for (const work of inFlight) if (work.actor === actor) return true;
  return false;
}

/** The first result of several stories in flight, with its work. */
function race(inFlight: Work[]): Promise<Done> {
  return Promise.race(inFlight.map(settled));
}

/** A work's result with the work, made once (at its first race). */
function settled(work: Work): Promise<Done> {
  work.settled ??= work.result.then(
    (event): Done => ({ work, event }),
    (error: unknown): Done => ({ work, failure: failed(error) }),
  );
  return work.settled;
}

function failed(error: unknown): ChiefEvent {
  const failure = toMeshflowError(error);
  return { type: "FAILED", code: failure.code, message: failure.message };
}
