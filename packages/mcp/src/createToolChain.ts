import type { ClientPool } from "./ClientPool.js";
import { ConfirmationGate } from "./ConfirmationGate.js";
import { composeMiddleware } from "./composeMiddleware.js";
import { Guard } from "./Guard.js";
import { MetricsCollector } from "./MetricsCollector.js";
import { buildMiddleware, MIDDLEWARE_PARTS } from "./middleware/middlewareParts.js";
import { poolHandler } from "./middleware/poolHandler.js";
import type { SchemaValidator } from "./SchemaValidator.js";
import type { DescribeTool, EventSink, ToolHandler } from "./types.js";

/** Options of {@link createToolChain}. Parts not given are created with defaults. */
export interface ToolChainOptions {
  pool: ClientPool;
  metrics?: MetricsCollector;
  guard?: Guard;
  confirmation?: ConfirmationGate;
  validator?: SchemaValidator;
  /** Finds a tool's descriptor (schema, annotations); default: the pool's discovery cache. */
  describe?: DescribeTool;
  /** Refusals, guard changes, issued tokens, skipped validation. */
  onEvent?: EventSink;
  /** Monotonic clock for latencies (default `performance.now`). */
  now?: () => number;
}

/** A run's tool calls pass every middleware. */
const TOOL_CHAIN = MIDDLEWARE_PARTS.map((part) => part.name);

/** The default {@link DescribeTool} over a pool: its cache, else discovery of the tool's server. */
export function describeFromPool(pool: ClientPool): DescribeTool {
  return (qualifiedName) => pool.cachedTool(qualifiedName) ?? pool.getTool(qualifiedName);
}

/**
 * The call path of every tool call: metrics → guard → policy → confirmation → validation → call,
 * over the pool's clients. Refusals are results with `isError` and a `code`, each reported to `onEvent`.
 *
 * @example
 * const call = createToolChain({ pool, onEvent: (e) => log(e) });
 * const result = await call("everything__echo", { message: "hi" }, { repertoire, storyId: "US-1", step: 7 });
 */
export function createToolChain(options: ToolChainOptions): ToolHandler {
  const { pool, onEvent } = options;
  const middleware = buildMiddleware(TOOL_CHAIN, {
    metrics: options.metrics ?? new MetricsCollector(),
    guard: options.guard ?? new Guard(),
    confirmation: options.confirmation ?? new ConfirmationGate(),
    describe: options.describe ?? describeFromPool(pool),
    ...(options.validator ? { validator: options.validator } : {}),
    ...(onEvent ? { onEvent } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return composeMiddleware(middleware, poolHandler(pool, onEvent ? { onEvent } : {}));
}
