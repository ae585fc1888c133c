import { MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import { type Actor, createActor, type EventFromLogic, type Snapshot } from "xstate";
import type { ChiefAnalyst, ChiefContext } from "../machine/chiefAnalyst.js";
import type { ParallelChief } from "../machine/parallelChief.js";
import type { PersistedRun } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";

/**
 * The chief-analyst actor of one run, whose every transition is persisted before it is published:
 * the machine's events are held until the snapshot of the state they describe is saved, so whoever
 * sees `step.finished` (stdout, the events file) can count on a resume not running that step again.
 */
export class PersistedActor<M extends ChiefAnalyst | ParallelChief = ChiefAnalyst> {
  readonly actor: Actor<M>;
  readonly #state: SessionState;
  #held: RunEvent[] = [];
  /** An exception of a machine action or guard: it ends the run instead of the process. */
  crashed: MeshflowError | undefined;

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
    this.actor.on("*", (event) => {
      state.handle?.appendEvent(event as RunEvent);
      this.#held.push(event as RunEvent);
    });
  }

  /** Keeps the first error that ends the run. */
  fail(error: unknown): void {
    this.crashed ??= toMeshflowError(error);
  }

  /** Sends an event to the machine, persists the state it leads to, then publishes its events. */
  send(event: EventFromLogic<M>): void {
    // Both machines' snapshots have the fields used here; the flat machine's type stands for both.
    const actor = this.actor as unknown as Actor<ChiefAnalyst>;
    actor.send(event as EventFromLogic<ChiefAnalyst>);
    const snapshot = actor.getSnapshot();
    if (this.crashed) throw this.crashed;
    const { handle, deps } = this.#state;
    if (handle && snapshot.status === "active")
      handle.saveSnapshot(
        hasChildren(snapshot.children)
          ? actor.getPersistedSnapshot()
          : ({ value: snapshot.value, context: snapshot.context } satisfies PersistedRun),
      );
    const out = this.#held;
    this.#held = [];
    for (const e of out) deps.onEvent?.(e);
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
