import type { BudgetSpent, RunSpent } from "@meshflow/core";
import type { ModelBudgets } from "../ModelBudgets.js";
import { dollars, type LoopSpend } from "./LoopSpend.js";

/**
 * Why the loop may not start another turn (a `budget_exhausted` summary naming what was spent), or
 * undefined. `deadline`: `Date.now()` past which no turn starts.
 */
export function budgetStop(
  budgets: ModelBudgets,
  spent: BudgetSpent,
  run: RunSpent | undefined,
  deadline: number,
  spend: LoopSpend,
  name: string,
): string | undefined {
  const used = spend.describe();
  if (spent.turns >= budgets.maxTurns) return `--max-turns ${budgets.maxTurns} reached (${used})`;
  if (budgets.maxStepTokens > 0 && spent.tokens >= budgets.maxStepTokens)
    return `--max-step-tokens ${budgets.maxStepTokens} reached (${used})`;
  if (Date.now() >= deadline) return `--step-timeout ${budgets.stepTimeoutMs} ms reached (${used})`;
  const costBudgets = [
    budgets.maxStepCostUsd > 0 ? `--max-step-cost ${budgets.maxStepCostUsd}` : "",
    budgets.maxRunCostUsd > 0 ? `--max-run-cost ${budgets.maxRunCostUsd}` : "",
  ].filter(Boolean);
  // A budget in dollars cannot be kept by a model whose dollars nobody knows: refused before any turn.
  if (costBudgets.length && !spend.priced)
    return `${costBudgets.join(" and ")} cannot be kept: the cost of ${name} is unknown (it is in no price table; give its prices with --prices <file> or the PRD's "prices")`;
  const stepCost = spent.costUsd ?? 0;
  if (budgets.maxStepCostUsd > 0 && stepCost >= budgets.maxStepCostUsd)
    return `--max-step-cost ${dollars(budgets.maxStepCostUsd)} reached: the step's models spent ${dollars(stepCost)} (${used})`;
  if (budgets.maxRunCostUsd > 0 && run && run.costUsd >= budgets.maxRunCostUsd)
    return `--max-run-cost ${dollars(budgets.maxRunCostUsd)} reached: the run's models spent ${dollars(run.costUsd)}, this step ${dollars(stepCost)} (${used})`;
  return undefined;
}
