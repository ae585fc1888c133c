import { MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import { type Actor, createActor } from "xstate";
import type { ChiefAnalyst, ChiefEvent } from "../machine/chiefAnalyst.js";
import type { PersistedRun } from "./SessionMode.js";
import type { SessionState } from "./SessionState.js";

/**
 * The chief-analyst actor of one run, whose every transition is persisted before it is published:
 * the machine's events are held until the snapshot of the state they describe is saved, so whoever
 * sees `step.finished` (stdout, the events file) can count on a resume not running that step again.
 */
export class PersistedActor {
  readonly actor: Actor<ChiefAnalyst>;
  readonly #state: SessionState;
  #held: RunEvent[] = [];
  /** An exception of a machine action or guard: it ends the run instead of the process. */
  crashed: MeshflowError | undefined;

  constructor(state: SessionState, machine: ChiefAnalyst, saved: PersistedRun | undefined) {
    this.#state = state;
    // The machine has no children and no history states: its state value and context are its whole
    // state, persisted as such and restored with `resolveState`.
    const snapshot = saved ? machine.resolveState({ value: saved.value, context: saved.context }) : undefined;
    this.actor = createActor(machine, { input: { runId: state.runId }, ...(snapshot ? { snapshot } : {}) });
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
  send(event: ChiefEvent): void {
    this.actor.send(event);
    const snapshot = this.actor.getSnapshot();
    if (this.crashed) throw this.crashed;
    const { handle, deps } = this.#state;
    if (handle && snapshot.status === "active")
      handle.saveSnapshot({ value: snapshot.value, context: snapshot.context } satisfies PersistedRun);
    const out = this.#held;
    this.#held = [];
    for (const e of out) deps.onEvent?.(e);
  }
}

/** The error for a run that stopped without one of its own. */
export function unexpectedStop(context: { error?: { code: string; message: string } | undefined }): MeshflowError {
  return new MeshflowError("internal", context.error?.message ?? "the run stopped unexpectedly", {
    details: { code: context.error?.code },
  });
}
