import type { ModelWait } from "@meshflow/core";

/** What a refused answer's status means, in words. */
function refusal(status: number | undefined): string {
  if (status === 429) return "429 rate limited";
  if (status === 529) return "529 overloaded";
  return status === undefined ? "no answer" : `HTTP ${status}`;
}

/** `429 rate limited: waiting 2.1 s (Retry-After), then try 2` — a model's wait before a retry. */
export function waitLine(wait: Pick<ModelWait, "status" | "waitMs" | "retryAfter" | "attempt">): string {
  const why = wait.retryAfter ? "Retry-After" : "backoff";
  return `${refusal(wait.status)}: waiting ${(wait.waitMs / 1000).toFixed(1)} s (${why}), then try ${wait.attempt}`;
}
