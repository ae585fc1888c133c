/**
 * A model request the provider refused for now (429 rate limited, 529 overloaded, another retryable
 * failure), and how long meshflow waits before asking again: for a live view. Transient like
 * {@link ModelTextDelta}: no run event, never stored; the turn, once answered, is journaled once.
 */
export interface ModelWait {
  runId: string;
  storyId: string;
  step: number;
  /** The consultation whose model waits, when it is not the step's own. */
  consult?: string;
  /** The turn's number within the step (or consultation). */
  turn: number;
  /** What the provider answered: its HTTP status, or undefined for a dropped connection. */
  status?: number;
  /** Milliseconds meshflow waits before the next try. */
  waitMs: number;
  /** True when the wait is the provider's `Retry-After` (capped, with jitter), not meshflow's own backoff. */
  retryAfter: boolean;
  /** The try that comes after the wait (2 for the first retry). */
  attempt: number;
}
