// Public API of @meshflow/mcp: the client pool, discovery, the middleware chain of every tool call
// and its parts (reused by the gateway server), and the diagnosis report. The building blocks of an
// MCP server are `@meshflow/mcp/server`; starting servers early is `@meshflow/mcp/prestart`.

export type { CallJournal, JournalEntry, JournalStart } from "./CallJournal.js";
export {
  ClientPool,
  type ClientPoolOptions,
  type ConnectionState,
  type PoolCallOptions,
  type PoolEvent,
  type ServerFailure,
  type ServerStatus,
  type TransportFactory,
} from "./ClientPool.js";
export {
  argsDigest,
  ConfirmationGate,
  type ConfirmationGateOptions,
  type ConfirmationToken,
  type TokenCheck,
  type TokenProblem,
} from "./ConfirmationGate.js";

export { createToolChain, describeFromPool, type ToolChainOptions } from "./createToolChain.js";
export { type DiagnoseOptions, type Diagnosis, diagnose, type ServerDiagnosis } from "./diagnose.js";
export type { Executor } from "./Executor.js";
export { DEFAULT_CALLS_PER_MINUTE, Guard, type GuardCheck, type GuardOptions, type GuardState } from "./Guard.js";
export { InlineExecutor } from "./InlineExecutor.js";
export { inMemoryServers } from "./inMemoryServers.js";
export {
  type LatencyStats,
  MetricsCollector,
  type MetricsOptions,
  type MetricsSummary,
  type ToolMetricsSummary,
} from "./MetricsCollector.js";

export type { MetricsMiddlewareOptions } from "./middleware/metricsMiddleware.js";

export type { ValidationMiddlewareOptions } from "./middleware/validationMiddleware.js";
export { refusal } from "./refusal.js";
export type { ArgsCheck } from "./SchemaValidator.js";
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
