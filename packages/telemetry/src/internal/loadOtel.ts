import type * as Api from "@opentelemetry/api";
import type { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { type ProcessFacts, processResource } from "../ProcessResource.js";
import type { TracingSettings } from "../tracingSettings.js";

/** The OpenTelemetry parts a {@link Tracing} uses, loaded only when traces are exported. */
export interface Otel {
  api: typeof Api;
  provider: BasicTracerProvider;
  tracer: Api.Tracer;
}

/** The instrumentation scope of meshflow's spans. */
const TRACER_NAME = "@meshflow/telemetry";

/**
 * Loads the OpenTelemetry API, the trace SDK and the OTLP exporter of the configured protocol (these
 * imports are the only ones in meshflow: without an endpoint they never happen), and builds a tracer
 * provider that batches spans to the exporter. It is not registered globally: meshflow's spans get
 * their parents explicitly, and other libraries' instrumentation stays the application's choice.
 */
export async function loadOtel(settings: TracingSettings, facts: ProcessFacts = {}): Promise<Otel> {
  const [api, sdk, resources, exporters] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
    settings.protocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const exporter = new exporters.OTLPTraceExporter({ url: settings.url });
  // OTEL_RESOURCE_ATTRIBUTES adds to (and may override) what the process says of itself; the service's
  // name stays the one the settings chose (OTEL_SERVICE_NAME, else meshflow).
  const resource = resources
    .resourceFromAttributes(processResource(settings.serviceName, facts))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ "service.name": settings.serviceName }));
  const provider = new sdk.BasicTracerProvider({
    resource,
    // Short batches: a `flow` command may live only a few seconds; shutdown flushes the rest.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1_000 })],
  });
  return { api, provider, tracer: provider.getTracer(TRACER_NAME) };
}
