/** The OTLP protocols meshflow can export traces with. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Where and how traces are exported, read from the standard OpenTelemetry environment variables. */
export interface TracingSettings {
  /** The full traces URL (`…/v1/traces`). */
  url: string;
  protocol: OtlpProtocol;
  /** `service.name` of every span (`OTEL_SERVICE_NAME`, default `meshflow`). */
  serviceName: string;
  /**
   * How long {@link Tracing.shutdown} waits for the last export before giving the spans up
   * (`FLOW_TRACES_FLUSH_TIMEOUT_MS`, default {@link DEFAULT_FLUSH_TIMEOUT_MS}).
   */
  flushTimeoutMs: number;
}

/**
 * The longest wait at exit for the last spans to be exported: 1 s. The OTLP exporter retries an
 * endpoint that refuses connections for up to its own 10 s timeout, which a `flow` command that
 * finished its work must not spend.
 */
const DEFAULT_FLUSH_TIMEOUT_MS = 1_000;

/** The environment variable that sets {@link TracingSettings.flushTimeoutMs}. */
const FLUSH_TIMEOUT_ENV = "FLOW_TRACES_FLUSH_TIMEOUT_MS";

/** The default `service.name` when `OTEL_SERVICE_NAME` is not set. */
const DEFAULT_SERVICE_NAME = "meshflow";

/** Why tracing stays off although an endpoint is set, or undefined. */
export type TracingOff = { reason: string };

const truthy = (value: string | undefined) => value?.trim().toLowerCase() === "true";

/**
 * The trace export settings of an environment, or undefined when traces are not to be exported: no
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` nor `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SDK_DISABLED=true`, or
 * `OTEL_TRACES_EXPORTER=none`. The generic endpoint gets `/v1/traces` appended, the traces-specific
 * one is used as it is (as the OTLP exporter specification says). `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`
 * (else `OTEL_EXPORTER_OTLP_PROTOCOL`) picks `http/protobuf` (default) or `http/json`; `grpc` is not
 * supported and answered with `{ reason }`. `FLOW_TRACES_FLUSH_TIMEOUT_MS` bounds the wait for the last
 * export at exit (a whole number of milliseconds, default 1000; anything else is a `{ reason }`).
 *
 * @example
 * tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" })?.url; // "http://localhost:4318/v1/traces"
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | TracingOff | undefined {
  if (truthy(env.OTEL_SDK_DISABLED)) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((e) => e.trim());
  if (exporters.includes("none")) return undefined;
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const generic = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!specific && !generic) return undefined;
  const url = specific || `${(generic ?? "").replace(/\/+$/, "")}/v1/traces`;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    return {
      reason: `OTLP protocol "${protocol}" is not supported (use http/protobuf or http/json); traces are not exported`,
    };
  const rawTimeout = env[FLUSH_TIMEOUT_ENV]?.trim();
  const flushTimeoutMs = rawTimeout ? Number(rawTimeout) : DEFAULT_FLUSH_TIMEOUT_MS;
  if (!Number.isSafeInteger(flushTimeoutMs) || flushTimeoutMs < 0)
    return {
      reason: `${FLUSH_TIMEOUT_ENV} must be a whole number of milliseconds, not "${rawTimeout}"; traces are not exported`,
    };
  return { url, protocol, serviceName: env.OTEL_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME, flushTimeoutMs };
}
