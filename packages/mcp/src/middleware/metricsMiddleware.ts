import { performance } from "node:perf_hooks";
import type { ToolResult } from "@meshflow/core";
import { payloadBytes } from "../internal/payloadBytes.js";
import type { MetricsCollector } from "../MetricsCollector.js";
import type { Middleware } from "../types.js";

/** Options of {@link metricsMiddleware}. */
export interface MetricsMiddlewareOptions {
  /** Monotonic clock in ms (default `performance.now`). */
  now?: () => number;
}

/**
 * Records every call that reaches it (refusals of later stages included) in `collector`: latency,
 * payload size, and whether the result is an error.
 */
export function metricsMiddleware(collector: MetricsCollector, options: MetricsMiddlewareOptions = {}): Middleware {
  const now = options.now ?? (() => performance.now());
  return (next) => (tool, args, ctx) => {
    const start = now();
    const failed = (error: unknown): never => {
      collector.record(tool, now() - start, 0, true);
      throw error;
    };
    let pending: Promise<ToolResult>;
    try {
      pending = next(tool, args, ctx);
    } catch (error) {
      return Promise.reject(error).catch(failed);
    }
    // `.then` rather than async/await: one promise hop less on every call.
    return pending.then((result) => {
      collector.record(tool, now() - start, payloadBytes(result), result.isError === true);
      return result;
    }, failed);
  };
}
