import type { ToolResult } from "@meshflow/core";

/** What a worker knows of a tool-call job it runs, for its span. */
export interface CallJobTrace {
  /** The W3C `traceparent` the job carries (the span of the call in the process that queued it). */
  traceparent?: string;
  tool: string;
  key: string;
  worker: string;
  attempt: number;
}

/**
 * How queued work joins the trace of the process that queued it, without the queue package knowing
 * OpenTelemetry: `@meshflow/telemetry`'s `Tracing` is one. The executor puts `traceparentOf(call)` in
 * each call job's data; a worker runs each call job inside `callJob`, which makes its span a child
 * of that `traceparent`.
 */
export interface JobTracing {
  /** The `traceparent` of the open span of a call in this process, or undefined. */
  traceparentOf(call: { key: string }): string | undefined;
  /** Runs a call job's work inside a span whose parent is the job's `traceparent`. */
  callJob(job: CallJobTrace, run: () => Promise<ToolResult>): Promise<ToolResult>;
}
