import type { ModelClaim, StepOutcome } from "@meshflow/core";
import type { ThinkContext, WorkOptions } from "./defineSpecialist.js";
import { scriptedThink } from "./scriptedThink.js";

/** What {@link scriptedThenModel} did: the step's work before the specialist's own checks. */
export interface DoneWork {
  /** Evidence of the scripted calls and the model's work, for the step's outcome. */
  evidence: unknown[];
  /** The scripted calls' outcome, when the story declares calls for the step. */
  scripted?: StepOutcome;
  /** What the model claimed, when a model is configured. */
  claim?: ModelClaim;
}

/** The evidence record of a model's work on a step. */
export function modelEvidence(model: string, claim: ModelClaim): Record<string, unknown> {
  return {
    model,
    claim: claim.finish ?? claim.code,
    summary: claim.summary,
    usage: claim.usage,
    calls: claim.calls,
    ...(claim.harness ? { harness: claim.harness } : {}),
  };
}

/**
 * The work of a step before a specialist's own checks: first the story's scripted calls for the step
 * (if any), then, when a model is configured, the model's tool loop over the repertoire. Returns
 * `{ stop }` when a scripted call failed or the model did not claim the step done (its fail or block,
 * a budget, no outcome) — an outcome to return as is — else what was done, for the checks to judge.
 */
export async function scriptedThenModel(
  ctx: ThinkContext,
  options?: WorkOptions,
): Promise<{ stop: StepOutcome } | DoneWork> {
  const evidence: unknown[] = [];
  let scripted: StepOutcome | undefined;
  if (ctx.scripted.length) {
    scripted = await scriptedThink(ctx);
    if (scripted.status !== "passed") return { stop: scripted };
    evidence.push({ scripted: scripted.summary, calls: scripted.evidence });
  }
  if (!ctx.model) return { evidence, ...(scripted ? { scripted } : {}) };
  const claim = await ctx.model.work(options);
  const record = modelEvidence(ctx.model.name, claim);
  if (claim.status !== "passed") {
    const who = claim.finish ? `${ctx.model.name} (${claim.finish})` : ctx.model.name;
    const outcome = { status: claim.status, summary: `${who}: ${claim.summary}`, evidence: [...evidence, record] };
    return { stop: outcome };
  }
  return { evidence: [...evidence, record], claim, ...(scripted ? { scripted } : {}) };
}

/**
 * The think() of a specialist without its own: the story's scripted calls, then the model when one is
 * configured. Its claim stands for the step (no checks of its own); the story's `verify` gate decides.
 * With neither calls nor a model the step cannot be done: `blocked`.
 */
export async function defaultThink(ctx: ThinkContext): Promise<StepOutcome> {
  if (!ctx.model) return scriptedThink(ctx);
  const work = await scriptedThenModel(ctx);
  if ("stop" in work) return work.stop;
  return ctx.pass(`${ctx.model.name}: ${work.claim?.summary ?? "done"}`, ...work.evidence);
}
