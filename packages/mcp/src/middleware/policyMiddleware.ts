import { didYouMean } from "@meshflow/core";
import { refuse } from "../refusal.js";
import type { CallContext, EventSink, Middleware } from "../types.js";

function whose(ctx: CallContext): string {
  if (ctx.storyId !== undefined && ctx.step !== undefined) return `story ${ctx.storyId} step ${ctx.step}`;
  if (ctx.storyId !== undefined) return `story ${ctx.storyId}`;
  if (ctx.step !== undefined) return `step ${ctx.step}`;
  return "the caller";
}

/**
 * Allows a call only when its tool is in the caller's repertoire (`ctx.repertoire`); anything else
 * is refused with `not_in_repertoire`, naming the tool and the step. No repertoire: no policy.
 */
export function policyMiddleware(options: { onEvent?: EventSink } = {}): Middleware {
  return (next) => (tool, args, ctx) => {
    const repertoire = ctx.repertoire;
    if (repertoire === undefined || repertoire.has(tool)) return next(tool, args, ctx);
    const message = `tool "${tool}" is not in the repertoire of ${whose(ctx)} (${repertoire.size} ${repertoire.size === 1 ? "tool" : "tools"} allowed)${didYouMean(tool, repertoire)}`;
    return Promise.resolve(refuse(options.onEvent, "policy", tool, ctx, "not_in_repertoire", message));
  };
}
