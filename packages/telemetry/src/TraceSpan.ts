import type * as Api from "@opentelemetry/api";
import { definedAttributes } from "./internal/attributes.js";
import type { SpanAttributes } from "./SpanAttributes.js";
import { formatTraceparent } from "./traceparent.js";

/** One span of a meshflow trace; ended once (later calls of `end` do nothing). */
export class TraceSpan {
  readonly span: Api.Span;
  readonly #api: typeof Api;
  #ended = false;

  constructor(span: Api.Span, api: typeof Api) {
    this.span = span;
    this.#api = api;
  }

  /** The W3C `traceparent` of this span: what a job carries so its work becomes this span's child. */
  get traceparent(): string {
    const { traceId, spanId, traceFlags } = this.span.spanContext();
    return formatTraceparent({ traceId, spanId, flags: traceFlags });
  }

  /** Adds attributes (undefined values are left out). */
  set(attributes: SpanAttributes): this {
    this.span.setAttributes(definedAttributes(attributes));
    return this;
  }

  /** Adds a span event (a refusal, a failed gate, …). */
  event(name: string, attributes: SpanAttributes = {}, time?: Date): this {
    this.span.addEvent(name, definedAttributes(attributes), time);
    return this;
  }

  /** Marks the span failed with `message` (status ERROR). */
  fail(message: string): this {
    this.span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message });
    return this;
  }

  /** Marks the span as having done its work (status OK). */
  ok(): this {
    this.span.setStatus({ code: this.#api.SpanStatusCode.OK });
    return this;
  }

  /** Records an exception (event `exception`) and marks the span failed. */
  exception(error: unknown): this {
    const e = error instanceof Error ? error : new Error(String(error));
    this.span.recordException(e);
    return this.fail(e.message);
  }

  /** Ends the span (at `time`, default now). */
  end(time?: Date): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end(time);
  }

  /** Whether {@link end} was called. */
  get ended(): boolean {
    return this.#ended;
  }
}
