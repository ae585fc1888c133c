import type { ErrorCode, StepOutcome, ToolResult } from "@meshflow/core";
import type { ThinkContext } from "./defineSpecialist.js";

/** The text of a result's text blocks, shortened for a one-line summary. */
export function resultText(result: ToolResult, max = 200): string {
  const text = result.content
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .filter(Boolean)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Refusals after which the step could not be done, as opposed to a call that ran and failed: blocked. */
const NOT_RUN: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "outcome_unknown",
  "aborted",
  "confirmation_declined",
  "confirmation_required",
  "approval_required",
  "approval_denied",
]);

/**
 * The think() of a specialist without its own plan: runs the story's scripted calls for the step in
 * order and passes only if none errors. With no scripted calls it cannot do the step: `blocked`.
 */
export async function scriptedThink(ctx: ThinkContext): Promise<StepOutcome> {
  if (ctx.scripted.length === 0)
    return ctx.block(
      `${ctx.specialist.name} has no plan of its own, the story declares no calls for step ${ctx.step} and no model is configured ` +
        `(add "calls": {"step${ctx.step}": [...]} to ${ctx.story.id}, set a model with --model, "model" in the PRD or FLOW_MODEL, or give the specialist a think())`,
    );
  const evidence: unknown[] = [];
  for (const [i, call] of ctx.scripted.entries()) {
    if (ctx.signal.aborted) return ctx.block(`aborted before call ${i + 1} (${call.tool})`, ...evidence);
    const result = await ctx.call(call.tool, call.args ?? {});
    evidence.push({ tool: call.tool, isError: result.isError === true, code: result.code });
    if (result.isError) {
      const why = result.code ? `${result.code}: ` : "";
      const summary = `call ${i + 1} of ${ctx.scripted.length} (${call.tool}) failed: ${why}${resultText(result)}`;
      return result.code !== undefined && NOT_RUN.has(result.code)
        ? ctx.block(summary, ...evidence)
        : ctx.fail(summary, ...evidence);
    }
  }
  const n = ctx.scripted.length;
  return ctx.pass(`${n} scripted call${n === 1 ? "" : "s"} succeeded`, ...evidence);
}
