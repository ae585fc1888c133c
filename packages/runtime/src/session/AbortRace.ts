/**
 * Races a run's work against its abort signal, with one listener on the signal for the whole run
 * (an `AbortSignal` listener added and removed at every step costs more than the step's bookkeeping).
 */
export class AbortRace {
  readonly #signal: AbortSignal;
  readonly #waiting = new Set<() => void>();

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener(
      "abort",
      () => {
        for (const stop of this.#waiting) stop();
        this.#waiting.clear();
      },
      { once: true },
    );
  }

  /**
   * Resolves with `pending`'s value, or with undefined as soon as the signal aborts: the run's driver
   * does not wait for a think() that ignores its signal.
   */
  until<T>(pending: Promise<T>): Promise<T | undefined> {
    if (this.#signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const stop = () => resolve(undefined);
      this.#waiting.add(stop);
      pending.then(
        (value) => {
          this.#waiting.delete(stop);
          resolve(value);
        },
        (error: unknown) => {
          this.#waiting.delete(stop);
          reject(error);
        },
      );
    });
  }
}
