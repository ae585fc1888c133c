/** Limits of one step's model loop. Every one is a flag of `flow run`. */
export interface ModelBudgets {
  /** Model turns per step (`--max-turns`). */
  maxTurns: number;
  /** Input + output tokens per step (`--max-step-tokens`); 0 for no limit. */
  maxStepTokens: number;
  /** Wall time of a step's loop in ms (`--step-timeout`); 0 for no limit. */
  stepTimeoutMs: number;
  /** Characters of one tool result sent back to the model (`--max-result-chars`). */
  maxResultChars: number;
  /** US dollars a step's model turns may cost (`--max-step-cost`); 0 for no limit. */
  maxStepCostUsd: number;
  /** US dollars the run's model turns may cost, every step together (`--max-run-cost`); 0 for no limit. */
  maxRunCostUsd: number;
  /** Tokens of the model's context window (`--context-window`); 0: the price table's figure, if any. */
  contextWindow: number;
  /** The part of the context window a request may fill before old tool results are trimmed (`--context-share`). */
  contextShare: number;
  /** Most read-only (or idempotent, not destructive) calls of one turn run at once (`--parallel-reads`); 1: one at a time. */
  parallelReads: number;
}

/**
 * The defaults of {@link ModelBudgets}, for programs that build a catalog or harness themselves.
 */
export const DEFAULT_BUDGETS: Readonly<ModelBudgets> = Object.freeze({
  maxTurns: 30,
  maxStepTokens: 0,
  stepTimeoutMs: 600_000,
  maxResultChars: 20_000,
  maxStepCostUsd: 0,
  maxRunCostUsd: 0,
  contextWindow: 0,
  contextShare: 0.75,
  parallelReads: 8,
});
