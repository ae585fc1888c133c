import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";
import { tracingSettings } from "./tracingSettings.js";

describe("tracingSettings", () => {
  it("is off without an endpoint, with OTEL_SDK_DISABLED or with OTEL_TRACES_EXPORTER=none", () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("appends /v1/traces to the generic endpoint, takes the traces endpoint as it is, defaults to http/protobuf", () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toEqual({
      url: "http://c:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "meshflow",
      flushTimeoutMs: 1000,
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/x",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "batch",
      }),
    ).toEqual({ url: "http://t:9/x", protocol: "http/json", serviceName: "batch", flushTimeoutMs: 1000 });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      }),
    ).toMatchObject({ protocol: "http/protobuf" });
  });

  it("bounds the flush at exit: FLOW_TRACES_FLUSH_TIMEOUT_MS, 1000 ms by default, a typo refused", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(tracingSettings({ ...env, FLOW_TRACES_FLUSH_TIMEOUT_MS: "250" })).toMatchObject({ flushTimeoutMs: 250 });
    expect(tracingSettings({ ...env, FLOW_TRACES_FLUSH_TIMEOUT_MS: "1s" })).toEqual({
      reason: expect.stringContaining('FLOW_TRACES_FLUSH_TIMEOUT_MS must be a whole number of milliseconds, not "1s"'),
    });
  });

  it("says why grpc is not used", () => {
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    ).toEqual({
      reason: expect.stringContaining('"grpc" is not supported'),
    });
  });
});

describe("parseTraceparent", () => {
  it("round-trips a W3C traceparent and refuses malformed or all-zero ids", () => {
    const value = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(formatTraceparent(parseTraceparent(value) ?? { traceId: "", spanId: "", flags: 0 })).toBe(value);
    expect(parseTraceparent("00-00000000000000000000000000000000-b7ad6b7169203331-01")).toBeUndefined();
    expect(parseTraceparent("garbage")).toBeUndefined();
    expect(parseTraceparent(undefined)).toBeUndefined();
  });
});
