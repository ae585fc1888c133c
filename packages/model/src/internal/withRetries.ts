/** How a failed model request is retried. */
export interface RetryOptions {
  maxRetries: number;
  signal: AbortSignal;
  /** First delay in ms, doubled on each retry (default 2,000, as the AI SDK's `generateText`). */
  initialDelayMs?: number;
}

/**
 * True for failures worth another try: the AI SDK's `APICallError` says so itself (408, 409, 429, 5xx),
 * and dropped connections. Read off the error rather than with `APICallError.isInstance`, so the SDK's
 * code is not loaded before a model is used.
 */
function retryable(error: unknown): boolean {
  const apiError = error as { name?: unknown; isRetryable?: unknown } | null;
  if (apiError?.name === "AI_APICallError") return apiError.isRetryable === true;
  return error instanceof TypeError && /fetch failed|terminated|socket/i.test(error.message);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `attempt`, retrying retryable failures with exponential backoff; the last failure is thrown. */
export async function withRetries<T>(attempt: () => PromiseLike<T>, options: RetryOptions): Promise<T> {
  let wait = options.initialDelayMs ?? 2_000;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= options.maxRetries || options.signal.aborted || !retryable(error)) throw error;
      await delay(wait, options.signal);
      wait *= 2;
    }
  }
}
