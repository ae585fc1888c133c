import type { ToolResult } from "@meshflow/core";
import type { Guard } from "../Guard.js";
import { refuse } from "../refusal.js";
import type { EventSink, Middleware } from "../types.js";

const HINT = { hint: "the guard is locked; unlock it to call guarded tools again" };

/**
 * Refuses calls while the guard is locked (`guard_locked: <reason>`) and when a call crosses the
 * per-minute threshold (`rate_limit_exceeded`, which also locks the guard). Unguarded tools pass.
 * An admitted call is asked again at send time (`ctx.beforeSend`, right before it leaves for its
 * server): a lock that came meanwhile refuses it.
 */
export function guardMiddleware(guard: Guard, options: { onEvent?: EventSink } = {}): Middleware {
  return (next) => (tool, args, ctx) => {
    const verdict = guard.check(tool);
    if (!verdict.allowed)
      return Promise.resolve(refuse(options.onEvent, "guard", tool, ctx, verdict.code, verdict.reason, HINT));
    const earlier = ctx.beforeSend;
    const beforeSend = (): ToolResult | undefined => {
      const before = earlier?.();
      if (before) return before;
      const late = guard.checkLock(tool);
      return late.allowed ? undefined : refuse(options.onEvent, "guard", tool, ctx, late.code, late.reason, HINT);
    };
    return next(tool, args, { ...ctx, beforeSend });
  };
}
