import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FlowWorker, startFlowWorker } from "../helpers/flowWorker.js";
import { flowWorkspace } from "../helpers/flowWorkspace.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlpReceiver.js";
import { finishedRun } from "../helpers/queuedRuns.js";
import { type RedisServer, startRedisServer } from "../helpers/redisServer.js";
import { ROOT } from "../helpers/runFlow.js";

// Real processes, a real Redis and a real OTLP/HTTP receiver (JSON): `flow enqueue`, a worker that
// runs only the runs queue and one that runs only the calls queue each export their own spans, and the
// spans must form one trace across the three processes.

const append = (file: string, line: string) => ({ tool: "slow__append_line", args: { file, line } });
const PROBE = join(ROOT, "tests/fixtures/otel-probe/register.mjs");

let redis: RedisServer | undefined;
let receiver: OtlpReceiver | undefined;
let workers: FlowWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop("SIGKILL")));
  workers = [];
  await redis?.stop();
  redis = undefined;
  await receiver?.close();
  receiver = undefined;
});

const otel = (endpoint: string, service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_SERVICE_NAME: service,
});

function only(spans: ReceivedSpan[], match: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan {
  const found = spans.filter(match);
  if (found.length !== 1)
    throw new Error(`expected one ${what}, found ${found.length}: ${JSON.stringify(spans.map((s) => s.name))}`);
  return found[0] as ReceivedSpan;
}

describe("OpenTelemetry traces", () => {
  it("a queued run across two worker processes is one trace: enqueue → run → story → step → tool → the other worker's call", async () => {
    redis = await startRedisServer();
    receiver = await startOtlpReceiver();
    const ws = flowWorkspace();
    ws.writePrd([
      { mcpTools: { step1: ["slow"] }, calls: { step1: [append("t.txt", "one"), append("t.txt", "two")] } },
    ]);
    const runs = await startFlowWorker(
      ws,
      redis.url,
      ["--queues", "runs", "--name", "R"],
      otel(receiver.endpoint, "mf-runs"),
    );
    const calls = await startFlowWorker(
      ws,
      redis.url,
      ["--queues", "calls", "--name", "C"],
      otel(receiver.endpoint, "mf-calls"),
    );
    workers.push(runs, calls);
    const enqueued = await ws.flow(
      ["enqueue", "prd.json", "--redis", redis.url, "--json"],
      otel(receiver.endpoint, "mf-enqueue"),
    );
    expect(enqueued.code).toBe(0);
    const runId = (JSON.parse(enqueued.stdout) as { runs: Array<{ runId: string }> }).runs[0]?.runId ?? "";
    const run = await finishedRun(redis.url, runId);
    expect(run.status).toBe("passed");
    expect(ws.read("t.txt")).toBe("one\ntwo\n");
    // A drained worker exports what it buffered before it exits.
    expect(await runs.stop("SIGTERM")).toBe(0);
    expect(await calls.stop("SIGTERM")).toBe(0);

    const spans = receiver.spans;
    expect(receiver.rejected).toEqual([]);
    const enqueue = only(spans, (s) => s.name === "enqueue prd.json", "enqueue span");
    expect(enqueue.service).toBe("mf-enqueue");
    expect(enqueue.parentSpanId).toBe("");
    const trace = enqueue.traceId;
    expect(spans.every((s) => s.traceId === trace)).toBe(true);

    // Named after the PRD as enqueued, not the worker's copy of it.
    const runSpan = only(spans, (s) => s.name === "run prd.json", "run span");
    expect(runSpan).toMatchObject({ service: "mf-runs", parentSpanId: enqueue.spanId, status: 1 });
    expect(runSpan.attributes["meshflow.run.id"]).toBe(runId);
    const story = only(spans, (s) => s.name === "story US-001", "story span");
    expect(story).toMatchObject({ service: "mf-runs", parentSpanId: runSpan.spanId, status: 1 });
    const step = only(spans, (s) => s.name.startsWith("step 1 "), "step span");
    expect(step).toMatchObject({ service: "mf-runs", parentSpanId: story.spanId, status: 1 });

    const tools = spans.filter((s) => s.name === "tool slow__append_line");
    expect(tools).toHaveLength(2);
    for (const tool of tools) {
      expect(tool).toMatchObject({ service: "mf-runs", parentSpanId: step.spanId });
      expect(tool.attributes["gen_ai.tool.name"]).toBe("slow__append_line");
      // The calls worker's span of this call is its child, across processes.
      const call = only(
        spans,
        (s) => s.name === "call slow__append_line" && s.parentSpanId === tool.spanId,
        "call span",
      );
      expect(call.service).toBe("mf-calls");
      expect(call.attributes).toMatchObject({
        "meshflow.tool.key": tool.attributes["meshflow.tool.key"],
        "meshflow.worker": "C",
        "gen_ai.operation.name": "execute_tool",
      });
    }

    // Each process says where it ran: its host, pid, instance and version, and a worker its --name.
    const version = (JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string })
      .version;
    const resources = new Map(spans.map((s) => [s.service, s.resource]));
    const pids = new Map([
      ["mf-runs", runs.child.pid],
      ["mf-calls", calls.child.pid],
    ]);
    for (const service of ["mf-enqueue", "mf-runs", "mf-calls"]) {
      const resource = resources.get(service) ?? {};
      expect(resource, service).toMatchObject({ "service.version": version, "host.name": hostname() });
      expect(resource["service.instance.id"], service).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof resource["process.pid"], service).toBe("number");
      if (pids.has(service)) expect(resource["process.pid"], service).toBe(pids.get(service));
    }
    expect(resources.get("mf-runs")?.["meshflow.worker.name"]).toBe("R");
    expect(resources.get("mf-calls")?.["meshflow.worker.name"]).toBe("C");
    expect(resources.get("mf-enqueue")?.["meshflow.worker.name"]).toBeUndefined();
    const instances = new Set([...resources.values()].map((r) => r["service.instance.id"]));
    expect(instances.size).toBe(3);
  }, 120_000);

  it("flow run --executor queue: the worker's call spans are children of the run's tool spans", async () => {
    redis = await startRedisServer();
    receiver = await startOtlpReceiver();
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("q.txt", "q")] } }]);
    const calls = await startFlowWorker(
      ws,
      redis.url,
      ["--queues", "calls", "--name", "C"],
      otel(receiver.endpoint, "mf-calls"),
    );
    workers.push(calls);
    const run = await ws.flow(
      ["run", "prd.json", "--executor", "queue", "--redis", redis.url],
      otel(receiver.endpoint, "mf-run"),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await calls.stop("SIGTERM")).toBe(0);
    const tool = only(receiver.spans, (s) => s.name === "tool slow__append_line", "tool span");
    expect(tool.service).toBe("mf-run");
    const call = only(receiver.spans, (s) => s.name === "call slow__append_line", "call span");
    expect(call).toMatchObject({ service: "mf-calls", parentSpanId: tool.spanId, traceId: tool.traceId });
  }, 90_000);

  it("a run without OTEL_EXPORTER_OTLP_ENDPOINT loads no @opentelemetry module; with it, the exporter is loaded", async () => {
    const ws = flowWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["slow"] }, calls: { step1: [append("p.txt", "x")] } }]);
    const dir = mkdtempSync(join(tmpdir(), "meshflow-otel-probe-"));
    const probe = (log: string, env: Record<string, string | undefined>) =>
      ws.flow(["run", "prd.json"], {
        NODE_OPTIONS: `--import=${PROBE}`,
        MESHFLOW_OTEL_PROBE_LOG: log,
        OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
        ...env,
      });
    const off = join(dir, "off.txt");
    const plain = await probe(off, {});
    expect(plain.code, plain.stderr).toBe(0);
    expect(existsSync(off) ? readFileSync(off, "utf8") : "").toBe("");

    // The same probe sees the SDK when an endpoint is set (nothing listens there: spans are dropped).
    const on = join(dir, "on.txt");
    const traced = await probe(on, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
    });
    expect(traced.code, traced.stderr).toBe(0);
    expect(readFileSync(on, "utf8")).toContain("exporter-trace-otlp-http");
  }, 60_000);
});
