import { MeshflowError, toMeshflowError } from "@meshflow/core";
import { type Actor, createActor } from "xstate";
import { type ChiefAnalyst, type ChiefEvent, storyActorOf } from "../machine/chiefAnalyst.js";
import type { StoryActor, StoryEvent } from "../machine/storyActor.js";
import type { SessionState } from "./SessionState.js";
import { captureRun, type PersistedRun, restorableRun } from "./savedRun.js";

/**
 * The chief-analyst actor of one run, whose every transition is persisted before it is published:
 * its events go out through the run's {@link Outbox} with the state they lead to, so whoever sees
 * `step.finished` (stdout) can count on a resume not running that step again.
 */
export class PersistedActor {
  readonly actor: Actor<ChiefAnalyst>;
  readonly #state: SessionState;
  #crashed: MeshflowError | undefined;
  /** The state before the last event of the chief's, kept while that event may have stopped the run. */
  #before: PersistedRun | undefined;
  /**
   * The run's state as the outbox writes it, taken when it writes: the state after every event it
   * writes. Taking it at each transition would cost more than the transition.
   */
  readonly #capture = (): PersistedRun | undefined => {
    const snapshot = this.actor.getSnapshot();
    return snapshot.status === "active" ? captureRun(snapshot) : this.#before;
  };

  constructor(state: SessionState, machine: ChiefAnalyst, saved: PersistedRun | undefined) {
    this.#state = state;
    this.actor = createActor(machine, {
      input: { runId: state.runId },
      ...(saved ? { snapshot: restorableRun(saved) } : {}),
    });
    // xstate rethrows an exception of an action or guard as an uncaught error unless someone listens.
    this.actor.subscribe({ error: (error) => this.fail(error) });
  }

  /**
   * What ends the run with an error: an exception of a machine action or guard (it ends the run
   * instead of the process), or of a write of the outbox after its turn.
   */
  get crashed(): MeshflowError | undefined {
    return this.#crashed ?? this.#state.outbox.failure;
  }

  /** Keeps the first error that ends the run. */
  fail(error: unknown): void {
    this.#crashed ??= toMeshflowError(error);
  }

  /**
   * Sends an event to the machine; the state it leads to is persisted, then its events published, with
   * the outbox's next flush (at once when the run has stopped).
   */
  send(event: ChiefEvent): void {
    // The chief's events may stop the run: a stopped machine's state is not persisted, the one
    // before the event is.
    const before = this.actor.getSnapshot();
    this.#before = before.status === "active" ? captureRun(before) : undefined;
    this.actor.send(event);
    this.#settle();
  }

  /**
   * Sends a step's or the gate's result, or a consultation's start or end, to the actor working the
   * story, persisted and published as {@link send} does. The chief analyst hears of it only when the
   * story reports (a halt).
   */
  sendStory(story: StoryActor, event: StoryEvent): void {
    story.send(event);
    this.#settle();
  }

  /** The actor working a story (plan index); undefined when the story is not in progress. */
  storyOf(story: number): StoryActor | undefined {
    return storyActorOf(this.actor.getSnapshot(), story);
  }

  #settle(): void {
    const snapshot = this.actor.getSnapshot();
    const crashed = this.crashed;
    if (crashed) throw crashed;
    const { outbox } = this.#state;
    if (snapshot.status !== "active") {
      outbox.flush();
      return;
    }
    this.#before = undefined;
    if (this.#state.handle) outbox.persist(this.#capture);
  }
}

/** The error for a run that stopped without one of its own. */
export function unexpectedStop(context: { error?: { code: string; message: string } | undefined }): MeshflowError {
  return new MeshflowError("internal", context.error?.message ?? "the run stopped unexpectedly", {
    details: { code: context.error?.code },
  });
}
