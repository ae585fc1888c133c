/** Blocks this thread for `ms` milliseconds: the wait of a synchronous retry (no other work runs meanwhile). */
export function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
