import type { TokenCount } from "@meshflow/core";

const n = (v: number) => v.toLocaleString("en-US");

/** `$0.0123`: dollars to four decimals (a turn costs fractions of a cent). */
function dollars(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

/**
 * What turns cost, in words: `$0.0123`; `cost unknown` when no turn had a price; `≥ $0.0123 (2 turns of
 * unknown cost)` when some had none; "" when nobody said (a harness that reports no cost).
 */
export function costText(t: Pick<TokenCount, "costUsd" | "unpricedTurns">): string {
  if (!t.unpricedTurns) return t.costUsd === undefined ? "" : dollars(t.costUsd);
  if (t.costUsd === undefined) return "cost unknown";
  return `≥ ${dollars(t.costUsd)} (${t.unpricedTurns} turn${t.unpricedTurns === 1 ? "" : "s"} of unknown cost)`;
}

/** The same in a table cell: `$0.0123`, `unknown`, `≥$0.0123`, or "". */
export function costCell(t: Pick<TokenCount, "costUsd" | "unpricedTurns"> | undefined): string {
  if (!t) return "";
  if (!t.unpricedTurns) return t.costUsd === undefined ? "" : dollars(t.costUsd);
  return t.costUsd === undefined ? "unknown" : `≥${dollars(t.costUsd)}`;
}

/** ` (900 from cache, 100 to cache)` after an input count, or "" when the cache was not used. */
export function cacheText(read: number | undefined, write: number | undefined): string {
  const parts = [read ? `${n(read)} from cache` : "", write ? `${n(write)} to cache` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}
