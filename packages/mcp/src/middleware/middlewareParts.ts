import type { ConfirmationGate } from "../ConfirmationGate.js";
import type { Guard } from "../Guard.js";
import type { MetricsCollector } from "../MetricsCollector.js";
import type { SchemaValidator } from "../SchemaValidator.js";
import type { DescribeTool, EventSink, Middleware } from "../types.js";
import { confirmationMiddleware } from "./confirmationMiddleware.js";
import { guardMiddleware } from "./guardMiddleware.js";
import { metricsMiddleware } from "./metricsMiddleware.js";
import { policyMiddleware } from "./policyMiddleware.js";
import { validationMiddleware } from "./validationMiddleware.js";

/** What the middleware are built from: the stateful parts a chain shares, and where events go. */
export interface MiddlewareDeps {
  metrics: MetricsCollector;
  guard: Guard;
  confirmation: ConfirmationGate;
  validator?: SchemaValidator;
  describe: DescribeTool;
  onEvent?: EventSink;
  /** Monotonic clock for latencies (default `performance.now`). */
  now?: () => number;
}

/** One named middleware of the call path. */
export interface MiddlewarePart {
  name: string;
  build(deps: MiddlewareDeps): Middleware;
}

const emit = (deps: MiddlewareDeps) => (deps.onEvent ? { onEvent: deps.onEvent } : {});

/**
 * The call path's middleware, outermost first: metrics → guard → policy → confirmation → validation.
 * Adding one is a file for it plus an entry here (and in a chain's list of names, if it is not in all).
 */
export const MIDDLEWARE_PARTS: readonly MiddlewarePart[] = [
  { name: "metrics", build: (d) => metricsMiddleware(d.metrics, d.now ? { now: d.now } : {}) },
  { name: "guard", build: (d) => guardMiddleware(d.guard, emit(d)) },
  { name: "policy", build: (d) => policyMiddleware(emit(d)) },
  { name: "confirmation", build: (d) => confirmationMiddleware(d.confirmation, d.describe, emit(d)) },
  {
    name: "validation",
    build: (d) => validationMiddleware(d.describe, { ...emit(d), ...(d.validator ? { validator: d.validator } : {}) }),
  },
];

/** The named middleware, in the call path's order (a name not in {@link MIDDLEWARE_PARTS} is skipped). */
export function buildMiddleware(names: readonly string[], deps: MiddlewareDeps): Middleware[] {
  return MIDDLEWARE_PARTS.filter((part) => names.includes(part.name)).map((part) => part.build(deps));
}
