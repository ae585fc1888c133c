import type { Tracing } from "@meshflow/telemetry";

let started: Promise<Tracing | undefined> | undefined;

/**
 * The process's traces: started on first use from the `OTEL_*` environment (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * …); undefined, with no OpenTelemetry package loaded, when no endpoint is set.
 */
export function processTracing(): Promise<Tracing | undefined> {
  started ??= import("@meshflow/telemetry").then(({ Tracing }) =>
    Tracing.start({ onWarning: (message) => process.stderr.write(`flow: warning: ${message}\n`) }),
  );
  return started;
}

/** Exports the spans still buffered; `flow` calls it once before it exits. */
export async function flushTracing(): Promise<void> {
  if (!started) return;
  const tracing = await started;
  await tracing?.shutdown().catch((error: unknown) => {
    process.stderr.write(
      `flow: warning: traces could not be exported: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  });
}
