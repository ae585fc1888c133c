import type { TokenCount } from "@meshflow/core";
import type { TurnItem } from "@meshflow/runtime/host";
import { num, plural } from "./api.js";

/** `$0.0123`. */
const dollars = (usd: number) => `$${usd.toFixed(4)}`;

/** ` · $0.0123`, ` · cost unknown`, ` · ≥ $0.0123 (1 turn of unknown cost)`, or "" when nobody said. */
export function costPart(t: Pick<TokenCount, "costUsd" | "unpricedTurns">): string {
  if (!t.unpricedTurns) return t.costUsd === undefined ? "" : ` · ${dollars(t.costUsd)}`;
  if (t.costUsd === undefined) return " · cost unknown";
  return ` · ≥ ${dollars(t.costUsd)} (${plural(t.unpricedTurns, "turn")} of unknown cost)`;
}

/** ` (900 from cache)` after an input count, or "". */
function cachePart(read: number | undefined, write: number | undefined): string {
  const parts = [read ? `${num(read)} from cache` : "", write ? `${num(write)} to cache` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** A step's or run's tokens: `1,234 / 56 tokens (900 from cache) in 3 turns · $0.0123`. */
export function tokensLabel(t: TokenCount): string {
  return `${num(t.input)} / ${num(t.output)} tokens${cachePart(t.cacheRead, t.cacheWrite)} in ${plural(t.turns, "turn")}${costPart(t)}`;
}

/** A model turn's tokens: `1,234 in (900 from cache) / 56 out · $0.0012`. */
export function turnLabel(item: TurnItem): string {
  const cost = costPart({
    ...(item.costUsd !== undefined ? { costUsd: item.costUsd } : {}),
    ...(item.costUnknown ? { unpricedTurns: 1 } : {}),
  });
  const trimmed = item.trimmedResults ? ` · ${plural(item.trimmedResults, "old result")} trimmed` : "";
  return `${num(item.inputTokens)} in${cachePart(item.cacheReadTokens, item.cacheWriteTokens)} / ${num(item.outputTokens)} out${cost}${trimmed}`;
}
