import { MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import { type Actor, createActor, type EventFromLogic, type Snapshot } from "xstate";
import type { ChiefAnalyst, ChiefContext } from "../machine/chiefAnalyst.js";
import type { ParallelChief } from "../machine/parallelChief.js";
import type { PersistedRun } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";

/**
 * The chief-analyst actor of one run, whose every transition is persisted before it is published:
 * its events go out through the run's {@link Outbox} with the state they lead to, so whoever sees
 * `step.finished` (stdout) can count on a resume not running that step again.
 */
export class PersistedActor<M extends ChiefAnalyst | ParallelChief = ChiefAnalyst> {
  readonly actor: Actor<M>;
  readonly #state: SessionState;
  #crashed: MeshflowError | undefined;

  constructor(state: SessionState, machine: M, saved: PersistedRun | undefined) {
    this.#state = state;
    // Without a consultation under way the machine has no children and no history states: its state
    // value and context are its whole state, persisted as such and restored with `resolveState`. A
    // snapshot taken during a consultation is xstate's persisted snapshot, children included.
    const snapshot = !saved
      ? undefined
      : saved.children
        ? (saved as unknown as Snapshot<unknown>)
        : (machine as ChiefAnalyst).resolveState({ value: saved.value, context: saved.context as ChiefContext });
    this.actor = createActor(machine as ChiefAnalyst, {
      input: { runId: state.runId },
      ...(snapshot ? { snapshot } : {}),
    }) as unknown as Actor<M>;
    // xstate rethrows an exception of an action or guard as an uncaught error unless someone listens.
    this.actor.subscribe({ error: (error) => this.fail(error) });
    this.actor.on("*", (event) => state.outbox.post(event as RunEvent));
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
  send(event: EventFromLogic<M>): void {
    // Both machines' snapshots have the fields used here; the flat machine's type stands for both.
    const actor = this.actor as unknown as Actor<ChiefAnalyst>;
    actor.send(event as EventFromLogic<ChiefAnalyst>);
    const snapshot = actor.getSnapshot();
    const crashed = this.crashed;
    if (crashed) throw crashed;
    const { outbox } = this.#state;
    if (snapshot.status !== "active") {
      outbox.flush();
      return;
    }
    if (this.#state.handle)
      // xstate's snapshots are immutable: the one taken now is the state of now whenever it is written.
      outbox.persist(
        hasChildren(snapshot.children)
          ? actor.getPersistedSnapshot()
          : ({ value: snapshot.value, context: snapshot.context } satisfies PersistedRun),
      );
  }
}

/** True when the machine has a child actor (a consultation under way); cheap for the usual empty object. */
function hasChildren(children: Record<string, unknown>): boolean {
  for (const _ in children) return true;
  return false;
}

/** The error for a run that stopped without one of its own. */
export function unexpectedStop(context: { error?: { code: string; message: string } | undefined }): MeshflowError {
  return new MeshflowError("internal", context.error?.message ?? "the run stopped unexpectedly", {
    details: { code: context.error?.code },
  });
}
