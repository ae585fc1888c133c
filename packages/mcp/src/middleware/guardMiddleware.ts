import type { Guard } from "../Guard.js";
import { refuse } from "../refusal.js";
import type { EventSink, Middleware } from "../types.js";

/**
 * Refuses calls while the guard is locked (`guard_locked: <reason>`) and when a call crosses the
 * per-minute threshold (`rate_limit_exceeded`, which also locks the guard). Unguarded tools pass.
 */
export function guardMiddleware(guard: Guard, options: { onEvent?: EventSink } = {}): Middleware {
  return (next) => (tool, args, ctx) => {
    const verdict = guard.check(tool);
    if (verdict.allowed) return next(tool, args, ctx);
    return Promise.resolve(
      refuse(options.onEvent, "guard", tool, ctx, verdict.code, verdict.reason, {
        hint: "the guard is locked; unlock it to call guarded tools again",
      }),
    );
  };
}
