import { createServer, type Server } from "node:http";

/** One span as an OTLP/JSON export carries it, with its resource's `service.name` and attributes. */
export interface ReceivedSpan {
  service: string;
  /** The resource attributes of the process that exported it (`host.name`, `process.pid`…). */
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  attributes: Record<string, unknown>;
  events: string[];
}

/** A real OTLP/HTTP receiver (protocol http/json) on a loopback port, collecting `/v1/traces` exports. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Requests that were not JSON exports to `/v1/traces` (a protobuf export, another path). */
  rejected: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

const anyValue = (v: AnyValue | undefined): unknown =>
  v === undefined
    ? undefined
    : (v.stringValue ??
      (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
      v.boolValue ??
      v.doubleValue ??
      v.arrayValue?.values?.map(anyValue));

const attributesOf = (list: Array<{ key: string; value?: AnyValue }> | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, anyValue(a.value)]));

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value?: AnyValue }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        status?: { code?: number };
        attributes?: Array<{ key: string; value?: AnyValue }>;
        events?: Array<{ name: string }>;
      }>;
    }>;
  }>;
}

/** Starts an {@link OtlpReceiver} on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces" || !req.headers["content-type"]?.includes("json")) {
        rejected.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
        res.writeHead(415).end();
        return;
      }
      const request = JSON.parse(body) as ExportRequest;
      for (const rs of request.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        const service = String(resource["service.name"] ?? "");
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              service,
              resource,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind ?? 0,
              status: s.status?.code ?? 0,
              attributes: attributesOf(s.attributes),
              events: (s.events ?? []).map((e) => e.name),
            });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    rejected,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
