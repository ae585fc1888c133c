// Public API of @meshflow/telemetry: OpenTelemetry traces of runs, exported over OTLP when the
// standard OTEL_* variables configure it. The OpenTelemetry packages are imported only then.

export type { ProcessFacts } from "./ProcessResource.js";
export type { SpanAttributes } from "./SpanAttributes.js";
export type { SpanKindName, StartSpanOptions } from "./StartSpanOptions.js";

export { type CallJobTrace, type ShutdownOutcome, type StartTracingOptions, Tracing } from "./Tracing.js";
export type { TraceParent } from "./traceparent.js";
export type {
  OtlpProtocol,
  TracingOff,
  TracingSettings,
} from "./tracingSettings.js";
