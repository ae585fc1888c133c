import type { SpanAttributes } from "./SpanAttributes.js";
import type { TraceSpan } from "./TraceSpan.js";

/** What a span is to the work around it (OpenTelemetry span kinds). */
export type SpanKindName = "internal" | "client" | "server" | "producer" | "consumer";

/** Options of `Tracing.startSpan`. */
export interface StartSpanOptions {
  /** The parent: a span of this process, or a `traceparent` from another one; none starts a trace. */
  parent?: TraceSpan | string;
  kind?: SpanKindName;
  attributes?: SpanAttributes;
  startTime?: Date;
}
