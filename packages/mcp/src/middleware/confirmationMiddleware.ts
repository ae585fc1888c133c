import type { ConfirmationGate } from "../ConfirmationGate.js";
import { withDescriptor } from "../internal/withDescriptor.js";
import { callIds, refuse } from "../refusal.js";
import type { DescribeTool, EventSink, Middleware } from "../types.js";

/**
 * Destructive tools (`destructiveHint: true`, or listed in the gate's config) need a confirmation
 * token when the caller is not annotation-aware: the first call is refused with
 * `confirmation_required` and a token bound to the tool and its arguments; a wrong, reused, expired
 * or argument-mismatched token is refused with `confirmation_invalid`.
 */
export function confirmationMiddleware(
  gate: ConfirmationGate,
  describe: DescribeTool,
  options: { onEvent?: EventSink } = {},
): Middleware {
  const emit = options.onEvent;
  return (next) => (tool, args, ctx) => {
    // Annotation-aware callers (and the people behind them) have seen destructiveHint already.
    if (ctx.annotationAware === true) return next(tool, args, ctx);
    return withDescriptor(describe, tool, ctx, emit, (descriptor) => {
      if (!gate.requiresConfirmation(descriptor)) return next(tool, args, ctx);
      const presented = ctx.confirmationToken;
      if (presented === undefined) {
        const issued = gate.issue(tool, args);
        const expiresAt = new Date(issued.expiresAt).toISOString();
        emit?.({ type: "confirmation.issued", time: new Date().toISOString(), ...callIds(ctx), tool, expiresAt });
        const message = `"${tool}" is destructive: call it again with the same arguments and confirmation token ${issued.token} (single use, valid until ${expiresAt})`;
        return Promise.resolve(
          refuse(emit, "confirmation", tool, ctx, "confirmation_required", message, {
            confirmationToken: issued.token,
            expiresAt,
            argsSha256: issued.argsSha256,
          }),
        );
      }
      const check = gate.consume(presented, tool, args);
      if (check.ok) return next(tool, args, ctx);
      return Promise.resolve(
        refuse(
          emit,
          "confirmation",
          tool,
          ctx,
          "confirmation_invalid",
          `${check.message}; call "${tool}" without a token to get a new one`,
          { problem: check.problem },
        ),
      );
    });
  };
}
