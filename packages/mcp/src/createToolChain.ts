import type { ClientPool } from "./ClientPool.js";
import { ConfirmationGate } from "./ConfirmationGate.js";
import { composeMiddleware } from "./composeMiddleware.js";
import { Guard } from "./Guard.js";
import { MetricsCollector } from "./MetricsCollector.js";
import { confirmationMiddleware } from "./middleware/confirmationMiddleware.js";
import { guardMiddleware } from "./middleware/guardMiddleware.js";
import { metricsMiddleware } from "./middleware/metricsMiddleware.js";
import { policyMiddleware } from "./middleware/policyMiddleware.js";
import { poolHandler } from "./middleware/poolHandler.js";
import { validationMiddleware } from "./middleware/validationMiddleware.js";
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
  const describe = options.describe ?? describeFromPool(pool);
  const emit = onEvent ? { onEvent } : {};
  return composeMiddleware(
    [
      metricsMiddleware(options.metrics ?? new MetricsCollector(), options.now ? { now: options.now } : {}),
      guardMiddleware(options.guard ?? new Guard(), emit),
      policyMiddleware(emit),
      confirmationMiddleware(options.confirmation ?? new ConfirmationGate(), describe, emit),
      validationMiddleware(describe, { ...emit, ...(options.validator ? { validator: options.validator } : {}) }),
    ],
    poolHandler(pool, emit),
  );
}
