// Public API of @meshflow/mcp: the client pool, discovery, the middleware chain of every tool call
// and its parts (reused by the gateway server), and the diagnosis report. The building blocks of an
// MCP server are `@meshflow/mcp/server`; starting servers early is `@meshflow/mcp/prestart`.

export type { CallJournal, JournalEntry, JournalStart } from "./CallJournal.js";
export {
  ClientPool,
  type ClientPoolOptions,
  type ConnectionState,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type PoolCallOptions,
  type PoolEvent,
  type ServerFailure,
  type ServerStatus,
  type TransportFactory,
} from "./ClientPool.js";
export {
  argsDigest,
  CONFIRMATION_TTL_MS,
  ConfirmationGate,
  type ConfirmationGateOptions,
  type ConfirmationToken,
  type TokenCheck,
  type TokenProblem,
} from "./ConfirmationGate.js";
export { composeMiddleware } from "./composeMiddleware.js";
export { createToolChain, describeFromPool, type ToolChainOptions } from "./createToolChain.js";
export { type DiagnoseOptions, type Diagnosis, diagnose, type ServerDiagnosis } from "./diagnose.js";
export type { Executor } from "./Executor.js";
export { DEFAULT_CALLS_PER_MINUTE, Guard, type GuardCheck, type GuardOptions, type GuardState } from "./Guard.js";
export { InlineExecutor } from "./InlineExecutor.js";
export { IN_MEMORY_COMMAND, inMemoryServers } from "./inMemoryServers.js";
export {
  ERROR_RATE_WARNING,
  type LatencyStats,
  METRICS_RING_SIZE,
  MetricsCollector,
  type MetricsOptions,
  type MetricsSummary,
  percentile,
  SLOW_P95_WARNING_MS,
  type ToolMetricsSummary,
} from "./MetricsCollector.js";
export { confirmationMiddleware } from "./middleware/confirmationMiddleware.js";
export { guardMiddleware } from "./middleware/guardMiddleware.js";
export { type MetricsMiddlewareOptions, metricsMiddleware } from "./middleware/metricsMiddleware.js";
export { policyMiddleware } from "./middleware/policyMiddleware.js";
export { poolHandler } from "./middleware/poolHandler.js";
export { type ValidationMiddlewareOptions, validationMiddleware } from "./middleware/validationMiddleware.js";
export { callIds, refusal, refuse } from "./refusal.js";
export { type ArgsCheck, SchemaValidator } from "./SchemaValidator.js";
export { toolSchemaBytes } from "./toolSchemaBytes.js";
export type {
  CallContext,
  CallIds,
  ChainStage,
  Clock,
  DescribeTool,
  EventSink,
  Middleware,
  MiddlewareEvent,
  ToolHandler,
} from "./types.js";
