import {
  type BudgetSpent,
  type ModelPrice,
  type ModelResponse,
  type ModelUsage,
  type RunSpent,
  turnCost,
} from "@meshflow/core";

/** A turn's cost: dollars from the price table, or unknown (the model has no price). */
export type TurnCostReport = { costUsd: number } | { costUnknown: true };

/** `$0.0123`: dollars to four decimals (a turn costs fractions of a cent). */
export function dollars(usd: number): string {
  return `$${usd.toFixed(4)}`;
}

/**
 * What one run of the loop used — turns, tokens (with the cache's share), cost — counted into the
 * budget the step shares with its consultations and into the run's.
 */
export class LoopSpend {
  readonly usage: ModelUsage = { inputTokens: 0, outputTokens: 0, turns: 0 };
  readonly #price: ModelPrice | undefined;
  readonly #step: BudgetSpent;
  readonly #run: RunSpent | undefined;

  constructor(price: ModelPrice | undefined, step: BudgetSpent, run: RunSpent | undefined) {
    this.#price = price;
    this.#step = step;
    this.#run = run;
  }

  /** Whether the model's turns have a price. */
  get priced(): boolean {
    return turnCost(this.#price, { inputTokens: 0, outputTokens: 0 }) !== undefined;
  }

  /** Counts a turn's tokens and cost (a replayed turn too: the run's totals say what its turns cost). */
  count(tokens: ModelResponse["usage"]): TurnCostReport {
    const u = this.usage;
    u.turns += 1;
    u.inputTokens += tokens.inputTokens;
    u.outputTokens += tokens.outputTokens;
    if (tokens.cacheReadTokens) u.cacheReadTokens = (u.cacheReadTokens ?? 0) + tokens.cacheReadTokens;
    if (tokens.cacheWriteTokens) u.cacheWriteTokens = (u.cacheWriteTokens ?? 0) + tokens.cacheWriteTokens;
    this.#step.turns += 1;
    this.#step.tokens += tokens.inputTokens + tokens.outputTokens;
    const cost = turnCost(this.#price, tokens);
    if (cost === undefined) {
      u.unpricedTurns = (u.unpricedTurns ?? 0) + 1;
      return { costUnknown: true };
    }
    u.costUsd = (u.costUsd ?? 0) + cost;
    this.#step.costUsd = (this.#step.costUsd ?? 0) + cost;
    if (this.#run) this.#run.costUsd += cost;
    return { costUsd: cost };
  }

  /** `2 turn(s), 1200 input (900 read from the cache) + 40 output tokens, $0.0012 so far`. */
  describe(): string {
    const u = this.usage;
    const cached = u.cacheReadTokens ? ` (${u.cacheReadTokens} read from the cache)` : "";
    const cost = u.costUsd !== undefined ? `, ${dollars(u.costUsd)}` : u.turns ? ", cost unknown" : "";
    return `${u.turns} turn(s), ${u.inputTokens} input${cached} + ${u.outputTokens} output tokens${cost} so far`;
  }

  /** The usage of the claim (a copy). */
  snapshot(): ModelUsage {
    return { ...this.usage };
  }
}
