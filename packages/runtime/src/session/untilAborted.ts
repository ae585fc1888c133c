/**
 * Resolves with `pending`'s value, or with undefined as soon as `signal` aborts: the run's driver
 * does not wait for a think() that ignores its signal.
 */
export function untilAborted<T>(signal: AbortSignal, pending: Promise<T>): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
