import type { ToolDescriptor } from "@meshflow/core";
import { withDescriptor } from "../internal/withDescriptor.js";
import { callIds, refuse } from "../refusal.js";
import { SchemaValidator } from "../SchemaValidator.js";
import type { DescribeTool, EventSink, Middleware } from "../types.js";

/** Options of {@link validationMiddleware}. */
export interface ValidationMiddlewareOptions {
  /** Shared validator (its compiled schemas are reused); default: a new one. */
  validator?: SchemaValidator;
  onEvent?: EventSink;
}

/**
 * Validates arguments against the tool's input JSON Schema before the call reaches the server;
 * violations are refused with `invalid_arguments`, naming each argument path. A schema that cannot
 * be compiled is reported once (`validation.skipped`) and the server judges the arguments.
 */
export function validationMiddleware(describe: DescribeTool, options: ValidationMiddlewareOptions = {}): Middleware {
  const validator = options.validator ?? new SchemaValidator();
  const emit = options.onEvent;
  const reported = new WeakSet<ToolDescriptor>();
  return (next) => (tool, args, ctx) =>
    withDescriptor(describe, tool, ctx, emit, (descriptor) => {
      const check = validator.check(descriptor, args);
      if (check.ok === true) return next(tool, args, ctx);
      if (check.ok === "skipped") {
        if (!reported.has(descriptor)) {
          reported.add(descriptor);
          const message = `input schema of "${tool}" cannot be compiled (${check.reason}); arguments are not checked`;
          emit?.({ type: "validation.skipped", time: new Date().toISOString(), ...callIds(ctx), tool, message });
        }
        return next(tool, args, ctx);
      }
      const message = `invalid arguments for "${tool}": ${check.problems.join("; ")}`;
      return Promise.resolve(
        refuse(emit, "validation", tool, ctx, "invalid_arguments", message, { problems: check.problems }),
      );
    });
}
