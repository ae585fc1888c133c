import { retryAfterMs } from "./retryAfter.js";

/** A wait before the next try of a failed request. */
interface RetryWait {
  /** The failed answer's HTTP status; undefined for a dropped connection. */
  status?: number;
  waitMs: number;
  /** The wait is the provider's `Retry-After` (capped, with jitter), not the backoff. */
  retryAfter: boolean;
  /** The try after the wait (2 for the first retry). */
  attempt: number;
}

/** How a failed model request is retried. */
export interface RetryOptions {
  maxRetries: number;
  signal: AbortSignal;
  /** First delay in ms, doubled on each retry (default 2,000, as the AI SDK's `generateText`). */
  initialDelayMs?: number;
  /** Longest wait a `Retry-After` may ask for, in ms (default 60,000); a longer one waits this long. */
  maxRetryWaitMs?: number;
  /** Told before each wait (a live view shows it). */
  onWait?: (wait: RetryWait) => void;
  /** A number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

/** The default of {@link RetryOptions.maxRetryWaitMs}. */
const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;

/** What a failed request tells about itself: the AI SDK's `APICallError` fields, read without loading the SDK. */
interface ApiFailure {
  name?: unknown;
  isRetryable?: unknown;
  statusCode?: unknown;
  responseHeaders?: unknown;
}

/**
 * True for failures worth another try: the AI SDK's `APICallError` says so itself (408, 409, 429, 5xx
 * — Anthropic's 529 overloaded among them), and dropped connections. Read off the error rather than with
 * `APICallError.isInstance`, so the SDK's code is not loaded before a model is used.
 */
function retryable(error: unknown): boolean {
  const apiError = error as ApiFailure | null;
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

/**
 * The wait before the next try: the provider's `Retry-After` when it sent one — capped, plus up to a
 * tenth more so that the steps a 429 held back do not all ask again at the same instant — else the
 * exponential backoff.
 */
function waitAfter(error: unknown, backoffMs: number, attempt: number, options: RetryOptions): RetryWait {
  const failure = error as ApiFailure | null;
  const status = typeof failure?.statusCode === "number" ? failure.statusCode : undefined;
  const asked = retryAfterMs(failure?.responseHeaders);
  const base = { ...(status !== undefined ? { status } : {}), attempt };
  if (asked === undefined) return { ...base, waitMs: backoffMs, retryAfter: false };
  const cap = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const jitter = 1 + 0.1 * (options.random ?? Math.random)();
  return { ...base, waitMs: Math.round(Math.min(cap, asked * jitter)), retryAfter: true };
}

/**
 * Runs `attempt`, retrying retryable failures after the provider's `Retry-After` or with exponential
 * backoff; the last failure is thrown. Only the answer that succeeds comes back: the turn it answers is
 * journaled once, however many tries it took.
 */
export async function withRetries<T>(attempt: () => PromiseLike<T>, options: RetryOptions): Promise<T> {
  let backoff = options.initialDelayMs ?? 2_000;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= options.maxRetries || options.signal.aborted || !retryable(error)) throw error;
      const wait = waitAfter(error, backoff, tries + 2, options);
      options.onWait?.(wait);
      await delay(wait.waitMs, options.signal);
      backoff *= 2;
    }
  }
}
