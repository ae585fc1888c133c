/**
 * The order in which isolated stories land: one at a time, in run order. A story enters the queue when
 * its workspace opens; its turn comes once every story that entered before it in run order has left
 * (merged, or concluded without merging). Stories that never entered (skipped, or concluded in an
 * earlier process) are not waited for.
 */
export class MergeQueue {
  readonly #waiting = new Map<number, { done: Promise<void>; leave: () => void }>();
  #tail: Promise<void> = Promise.resolve();

  /** Story `index` (its run order) will land, or leave, later. Idempotent. */
  enter(index: number): void {
    if (this.#waiting.has(index)) return;
    let leave = () => {};
    const done = new Promise<void>((resolve) => {
      leave = resolve;
    });
    this.#waiting.set(index, { done, leave });
  }

  /**
   * Runs `land` when it is story `index`'s turn: after every story of an earlier run order that entered,
   * and after any landing in progress (landings never overlap). The story leaves the queue after it.
   */
  async turn<T>(index: number, land: () => Promise<T>): Promise<T> {
    this.enter(index);
    const earlier = [...this.#waiting].filter(([i]) => i < index).map(([, w]) => w.done);
    await Promise.all(earlier);
    const previous = this.#tail;
    let release = () => {};
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await land();
    } finally {
      release();
      this.leave(index);
    }
  }

  /** Story `index` concluded without landing (or has landed): stories after it may land. */
  leave(index: number): void {
    this.#waiting.get(index)?.leave();
    this.#waiting.delete(index);
  }
}
