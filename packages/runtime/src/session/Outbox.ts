import { type MeshflowError, type RunEvent, toMeshflowError } from "@meshflow/core";
import type { RunHandle } from "../store/RunStore.js";

/** How long the writes of a run's progress wait to be made together: a group commit. */
export const WRITE_WINDOW_MS = 10;

/**
 * Where a run's events go out. Each event is recorded in the run's store at once, and handed to the
 * caller's listener (stdout, the gateway) only once the store has written what it describes: the state
 * the machine reached (its snapshot), the journal lines and evidence it relies on, the events before
 * it. Whoever sees `step.finished` can count on a resume not running that step again.
 *
 * Those writes are made together, {@link WRITE_WINDOW_MS} after the first of them was due (a group
 * commit): the machine's states in between are saved as the last one, and the writes happen while
 * the run goes on. A crash loses at most that window of progress, which a resume does again; a call
 * with effects is journaled before it is submitted whatever the window. {@link flush} writes at once.
 */
export class Outbox {
  readonly #handle: () => RunHandle | undefined;
  readonly #listener: ((event: RunEvent) => void) | undefined;
  readonly #emitted: ((event: RunEvent) => void) | undefined;
  readonly #before: (() => void) | undefined;
  #held: RunEvent[] = [];
  /** Takes the machine's state to persist, when it moved since the last flush. */
  #capture: (() => unknown) | undefined;
  #scheduled = false;
  readonly #flushLater = () => {
    this.#scheduled = false;
    try {
      this.flush();
    } catch (error) {
      this.failure ??= toMeshflowError(error);
    }
  };
  /** A write made later failed: the run ends with it (the machine's next transition throws it). */
  failure: MeshflowError | undefined;

  /**
   * `listener`: gets each event once written; `emitted`: gets each event at once, before anything is
   * written (traces: a tool call's span must exist before the call goes out); `before`: writes what
   * others hold back for the run (the PRD workflow's entries), first in every flush.
   */
  constructor(
    handle: () => RunHandle | undefined,
    listener: ((event: RunEvent) => void) | undefined,
    options: { emitted?: ((event: RunEvent) => void) | undefined; before?: () => void } = {},
  ) {
    this.#handle = handle;
    this.#listener = listener;
    this.#emitted = options.emitted;
    this.#before = options.before;
  }

  /** Records an event in the store and queues it for the listener. */
  post(event: RunEvent): void {
    this.#emitted?.(event);
    this.#handle()?.appendEvent(event);
    this.#held.push(event);
    this.#later();
  }

  /**
   * The machine moved: its state, as `capture` takes it at the next flush, is persisted then. The
   * state is taken when it is written, not at every transition: it is the state after every event
   * the flush writes (`capture` may return undefined: nothing new to write).
   */
  persist(capture: () => unknown): void {
    this.#capture = capture;
    this.#later();
  }

  #later(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(this.#flushLater, WRITE_WINDOW_MS);
  }

  /** Writes what is pending (the snapshot last), then hands the held events to the listener. */
  flush(): void {
    this.#before?.();
    const handle = this.#handle();
    const snapshot = this.#capture?.();
    this.#capture = undefined;
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
