import type { ModelPrice } from "./ModelPrice.js";

/** The tokens of one turn, as a provider counts them. */
export interface TurnTokens {
  /** Every input token, those read from and written to the cache included. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * What a turn cost in US dollars, or undefined when the price is unknown (no entry, or one without
 * `input` and `output`): never 0 for a model nobody priced. Cache tokens without a cache price are
 * counted at the input price.
 */
export function turnCost(price: ModelPrice | undefined, tokens: TurnTokens): number | undefined {
  if (price?.input === undefined || price.output === undefined) return undefined;
  const read = tokens.cacheReadTokens ?? 0;
  const write = tokens.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, tokens.inputTokens - read - write);
  const dollars =
    fresh * price.input +
    read * (price.cacheRead ?? price.input) +
    write * (price.cacheWrite ?? price.input) +
    tokens.outputTokens * price.output;
  return dollars / 1_000_000;
}
