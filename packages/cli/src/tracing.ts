import type { Tracing } from "@meshflow/telemetry";
import { cliVersion } from "./version.js";

let started: Promise<Tracing | undefined> | undefined;

/**
 * The process's traces: started on first use from the `OTEL_*` environment (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * …); undefined, with no OpenTelemetry package loaded, when no endpoint is set. Every span carries the
 * process's resource attributes (`service.version`: `flow --version`, its host, pid and instance id)
 * and, given by the first caller, a worker's name (`flow worker --name`).
 */
export function processTracing(facts: { workerName?: string } = {}): Promise<Tracing | undefined> {
  started ??= import("@meshflow/telemetry").then(({ Tracing }) =>
    Tracing.start({
      onWarning: (message) => process.stderr.write(`flow: warning: ${message}\n`),
      process: { serviceVersion: cliVersion(), ...facts },
    }),
  );
  return started;
}

/** True once {@link flushTracing} gave spans up at its bound, their export still retrying. */
let abandoned = false;

/**
 * Exports the spans still buffered; `flow` calls it once before it exits. It waits at most the
 * tracing's flush timeout (`FLOW_TRACES_FLUSH_TIMEOUT_MS`, 1 s by default) and then warns that the
 * spans were given up.
 */
export async function flushTracing(): Promise<void> {
  if (!started) return;
  const tracing = await started;
  if (!tracing) return;
  try {
    if ((await tracing.shutdown()) === "timed_out") {
      abandoned = true;
      process.stderr.write(
        `flow: warning: traces were not exported within ${tracing.settings.flushTimeoutMs} ms (${tracing.settings.url}); given up (FLOW_TRACES_FLUSH_TIMEOUT_MS sets the wait)\n`,
      );
    }
  } catch (error) {
    process.stderr.write(
      `flow: warning: traces could not be exported: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

/**
 * True when {@link flushTracing} gave spans up: the OTLP exporter's retry timers would keep the
 * process alive for up to its own 10 s timeout, so `flow` ends the process itself once its output is
 * written.
 */
export function tracingAbandoned(): boolean {
  return abandoned;
}
