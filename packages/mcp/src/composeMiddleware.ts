import type { Middleware, ToolHandler } from "./types.js";

/** Wraps `handler` in `middlewares`, the first outermost: `compose([a, b], h)` is `a(b(h))`. */
export function composeMiddleware(middlewares: readonly Middleware[], handler: ToolHandler): ToolHandler {
  return middlewares.reduceRight<ToolHandler>((next, middleware) => middleware(next), handler);
}
