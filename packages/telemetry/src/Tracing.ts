import type { RunEvent, ToolResult } from "@meshflow/core";
import type * as Api from "@opentelemetry/api";
import { GEN_AI_OPERATION_NAME, GEN_AI_TOOL_NAME } from "./genAiAttributes.js";
import { definedAttributes } from "./internal/attributes.js";
import { loadOtel, type Otel } from "./internal/loadOtel.js";
import type { ProcessFacts } from "./ProcessResource.js";
import { RunTracer } from "./RunTracer.js";
import type { SpanKindName, StartSpanOptions } from "./StartSpanOptions.js";
import { TraceSpan } from "./TraceSpan.js";
import { parseTraceparent } from "./traceparent.js";
import { type TracingSettings, tracingSettings } from "./tracingSettings.js";

/** How {@link Tracing.shutdown} ended: every span exported, or the bound passed with the export still going on. */
export type ShutdownOutcome = "flushed" | "timed_out";

/** Options of {@link Tracing.start}. */
export interface StartTracingOptions {
  /** The environment to read the `OTEL_*` variables from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Told why tracing stays off although an endpoint is set (an unsupported protocol, a load failure). */
  onWarning?: (message: string) => void;
  /** The program's version and a worker's name, on every span as resource attributes. */
  process?: ProcessFacts;
}

/** What a worker knows of a tool-call job it runs: the trace context the job carries and who runs it. */
export interface CallJobTrace {
  traceparent?: string;
  tool: string;
  key: string;
  worker: string;
  attempt: number;
}

/**
 * OpenTelemetry traces of meshflow, exported over OTLP. {@link Tracing.start} resolves to undefined,
 * having loaded nothing, unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * is set; callers keep an optional `Tracing` and skip every tracing step without one.
 *
 * A run's spans come from its events ({@link Tracing.runSink}); queued work joins the trace of the
 * process that queued it through a W3C `traceparent` in the job's data ({@link Tracing.traceparentOf},
 * {@link Tracing.callJob}).
 *
 * @example
 * const tracing = await Tracing.start();
 * const session = await startRun({ ...deps, onEmitted: tracing?.runSink() }, options);
 * await session.done;
 * await tracing?.shutdown();
 */
export class Tracing {
  readonly settings: TracingSettings;
  readonly #otel: Otel;
  /** Open tool-call spans of this process by idempotency key (their jobs' parent). */
  readonly #tools = new Map<string, TraceSpan>();

  private constructor(settings: TracingSettings, otel: Otel) {
    this.settings = settings;
    this.#otel = otel;
  }

  /** Starts exporting when the environment configures an OTLP endpoint; undefined (nothing loaded) otherwise. */
  static async start(options: StartTracingOptions = {}): Promise<Tracing | undefined> {
    const settings = tracingSettings(options.env ?? process.env);
    if (!settings) return undefined;
    if ("reason" in settings) {
      options.onWarning?.(settings.reason);
      return undefined;
    }
    try {
      return new Tracing(settings, await loadOtel(settings, options.process));
    } catch (error) {
      options.onWarning?.(
        `OpenTelemetry could not be loaded (${error instanceof Error ? error.message : String(error)}); traces are not exported`,
      );
      return undefined;
    }
  }

  /** Starts a span; end it with {@link TraceSpan.end}. */
  startSpan(name: string, options: StartSpanOptions = {}): TraceSpan {
    const { api, tracer } = this.#otel;
    const span = tracer.startSpan(
      name,
      {
        kind: spanKinds(api)[options.kind ?? "internal"],
        ...(options.attributes ? { attributes: definedAttributes(options.attributes) } : {}),
        ...(options.startTime ? { startTime: options.startTime } : {}),
      },
      this.#context(options.parent),
    );
    return new TraceSpan(span, api);
  }

  /** Runs `work` inside a new span: ended when it settles, failed with the exception when it throws. */
  async inSpan<T>(name: string, options: StartSpanOptions, work: (span: TraceSpan) => Promise<T>): Promise<T> {
    const span = this.startSpan(name, options);
    try {
      return await work(span);
    } catch (error) {
      span.exception(error);
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * A sink for a run's `onEmitted` (each event as it happens, before the work it announces: a tool
   * call's span exists before the call goes out) that turns the events into spans: run → story → step
   * → tool call and model turn. `parent`: the `traceparent` of the span that queued the run (a `flow enqueue`); `prd`: the
   * PRD as the user named it, when the run reads a copy (a queued run on a worker).
   */
  runSink(options: { parent?: string; prd?: string } = {}): (event: RunEvent) => void {
    const tracer = new RunTracer(this, options.parent, options.prd);
    return (event) => tracer.onEvent(event);
  }

  /** The `traceparent` of the open span of a tool call of this process (by idempotency key), for its job. */
  traceparentOf(call: { key: string }): string | undefined {
    return this.#tools.get(call.key)?.traceparent;
  }

  /** Runs a tool-call job on a worker inside a span whose parent is the job's `traceparent`. */
  callJob(job: CallJobTrace, run: () => Promise<ToolResult>): Promise<ToolResult> {
    return this.inSpan(
      `call ${job.tool}`,
      {
        kind: "consumer",
        ...(job.traceparent ? { parent: job.traceparent } : {}),
        attributes: {
          [GEN_AI_OPERATION_NAME]: "execute_tool",
          [GEN_AI_TOOL_NAME]: job.tool,
          "meshflow.tool.key": job.key,
          "meshflow.worker": job.worker,
          "meshflow.job.attempt": job.attempt,
        },
      },
      async (span) => {
        const result = await run();
        if (result.isError) span.fail(result.code ?? "tool_error").set({ "meshflow.tool.code": result.code });
        return result;
      },
    );
  }

  /** @internal A tool-call span opened by a run (see {@link traceparentOf}). */
  openTool(key: string, span: TraceSpan): void {
    this.#tools.set(key, span);
  }

  /** @internal The tool-call span of `key` is closed. */
  closeTool(key: string): TraceSpan | undefined {
    const span = this.#tools.get(key);
    this.#tools.delete(key);
    return span;
  }

  /**
   * Exports what is buffered and stops; call once before the process exits. Waits at most
   * `timeoutMs` (default the settings' `flushTimeoutMs`, 1 s): an endpoint that is down makes the
   * exporter retry for up to its own 10 s, with timers that keep the process alive, so past the bound
   * the spans are given up and `"timed_out"` tells the caller that it may end the process rather than
   * wait for them. Rejects when the export failed within the bound.
   */
  async shutdown(options: { timeoutMs?: number } = {}): Promise<ShutdownOutcome> {
    const timeoutMs = options.timeoutMs ?? this.settings.flushTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<"timed_out">((resolve) => {
      timer = setTimeout(() => resolve("timed_out"), timeoutMs);
      // The bound itself must not be what keeps a process alive.
      timer.unref();
    });
    try {
      return await Promise.race([this.#otel.provider.shutdown().then(() => "flushed" as const), bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  #context(parent: TraceSpan | string | undefined): Api.Context {
    const { api } = this.#otel;
    if (parent instanceof TraceSpan) return api.trace.setSpan(api.ROOT_CONTEXT, parent.span);
    const remote = parseTraceparent(parent);
    if (!remote) return api.ROOT_CONTEXT;
    return api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: remote.traceId,
      spanId: remote.spanId,
      traceFlags: remote.flags,
      isRemote: true,
    });
  }
}

const spanKinds = (api: typeof Api): Record<SpanKindName, Api.SpanKind> => ({
  internal: api.SpanKind.INTERNAL,
  client: api.SpanKind.CLIENT,
  server: api.SpanKind.SERVER,
  producer: api.SpanKind.PRODUCER,
  consumer: api.SpanKind.CONSUMER,
});
