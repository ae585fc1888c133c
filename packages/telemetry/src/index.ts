// Public API of @meshflow/telemetry: OpenTelemetry traces of runs, exported over OTLP when the
// standard OTEL_* variables configure it. The OpenTelemetry packages are imported only then.
export {
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_SYSTEM,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
} from "./genAiAttributes.js";
export { RunTracer } from "./RunTracer.js";
export type { SpanAttributes } from "./SpanAttributes.js";
export type { SpanKindName, StartSpanOptions } from "./StartSpanOptions.js";
export { TraceSpan } from "./TraceSpan.js";
export { type CallJobTrace, type ShutdownOutcome, type StartTracingOptions, Tracing } from "./Tracing.js";
export { formatTraceparent, parseTraceparent, type TraceParent } from "./traceparent.js";
export {
  DEFAULT_FLUSH_TIMEOUT_MS,
  DEFAULT_SERVICE_NAME,
  FLUSH_TIMEOUT_ENV,
  type OtlpProtocol,
  type TracingOff,
  type TracingSettings,
  tracingSettings,
} from "./tracingSettings.js";
