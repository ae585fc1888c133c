import { type MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import type { RunHandle } from "../store/RunStore.js";

/**
 * Where a run's events go out. Each event is recorded in the run's store at once, and handed to the
 * caller's listener (stdout, the gateway) only once the store has written what it describes: the state
 * the machine reached (its snapshot), the journal lines and evidence it relies on, the events before
 * it. Whoever sees `step.finished` can count on a resume not running that step again.
 *
 * Those writes are made once per turn of the event loop, right after the turn (`setImmediate`): the
 * machine's states of one turn are saved as its last one, and the writes of a step happen while the
 * tool call of the next step is already under way. {@link flush} makes them at once.
 */
export class Outbox {
  readonly #handle: () => RunHandle | undefined;
  readonly #listener: ((event: RunEvent) => void) | undefined;
  readonly #emitted: ((event: RunEvent) => void) | undefined;
  #held: RunEvent[] = [];
  /** The machine's state to persist, when it moved since the last flush. */
  #snapshot: unknown;
  #scheduled = false;
  readonly #flushLater = () => {
    this.#scheduled = false;
    try {
      this.flush();
    } catch (error) {
      this.failure ??= toMeshflowError(error);
    }
  };
  /** A write made after its turn failed: the run ends with it (the machine's next transition throws it). */
  failure: MeshflowError | undefined;

  /**
   * `listener`: gets each event once written; `emitted`: gets each event at once, before anything is
   * written (traces: a tool call's span must exist before the call goes out).
   */
  constructor(
    handle: () => RunHandle | undefined,
    listener: ((event: RunEvent) => void) | undefined,
    emitted?: ((event: RunEvent) => void) | undefined,
  ) {
    this.#handle = handle;
    this.#listener = listener;
    this.#emitted = emitted;
  }

  /** Records an event in the store and queues it for the listener. */
  post(event: RunEvent): void {
    this.#emitted?.(event);
    this.#handle()?.appendEvent(event);
    this.#held.push(event);
    this.#later();
  }

  /** The machine's new state, persisted with the next flush (replacing one not persisted yet). */
  persist(snapshot: unknown): void {
    this.#snapshot = snapshot;
    this.#later();
  }

  #later(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flushLater);
  }

  /** Writes what is pending (the snapshot last), then hands the held events to the listener. */
  flush(): void {
    const handle = this.#handle();
    const snapshot = this.#snapshot;
    this.#snapshot = undefined;
    if (handle) {
      if (snapshot !== undefined) handle.saveSnapshot(snapshot);
      else handle.flush();
    }
    const out = this.#held;
    if (!out.length) return;
    this.#held = [];
    for (const event of out) this.#listener?.(event);
  }
}
