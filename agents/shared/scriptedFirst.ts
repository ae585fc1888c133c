import type { StepOutcome } from "@meshflow/core";
import { scriptedThink, type ThinkContext } from "@meshflow/runtime";

/**
 * Runs the step's scripted calls (if the story declares any) before a specialist's own check: the
 * calls do the work (write, edit, record), the check verifies the result. Returns the outcome to
 * return at once when a call failed or was refused, else the scripted calls' evidence (possibly none).
 */
export async function scriptedFirst(ctx: ThinkContext): Promise<{ stop: StepOutcome } | { evidence: unknown[] }> {
  if (!ctx.scripted.length) return { evidence: [] };
  const outcome = await scriptedThink(ctx);
  if (outcome.status !== "passed") return { stop: outcome };
  return { evidence: [{ scripted: outcome.summary, calls: outcome.evidence }] };
}
