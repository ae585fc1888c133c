import { describe, expect, it } from "vitest";
import { MetricsCollector, percentile } from "./MetricsCollector.js";

describe("MetricsCollector", () => {
  it("gives p50 50 and p95 95 for latencies 1..100", () => {
    const metrics = new MetricsCollector();
    for (let i = 1; i <= 100; i++) metrics.record("t", i, 500, false);
    const latency = metrics.summary(true).perTool?.t?.latency;
    expect(latency).toEqual({ avg: 51, min: 1, max: 100, p50: 50, p95: 95, p99: 99 });
  });

  it("uses nearest-rank percentiles whatever the recording order", () => {
    const metrics = new MetricsCollector();
    for (let i = 100; i >= 1; i--) metrics.record("t", i, 0, false);
    expect(metrics.summary(true).perTool?.t?.latency.p95).toBe(95);
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([7], 0.99)).toBe(7);
  });

  it("counts errors and their rate per tool and overall", () => {
    const metrics = new MetricsCollector();
    for (let i = 0; i < 10; i++) metrics.record("t", 10, 100, i < 2);
    const summary = metrics.summary(true);
    expect(summary.perTool?.t).toMatchObject({ callCount: 10, errorCount: 2, errorRate: 0.2, avgPayloadBytes: 100 });
    expect(summary.totalToolCalls).toBe(10);
    expect(summary.overallErrorRate).toBe(0.2);
  });

  it("warns when a tool's error rate is above 10%, not at 10%", () => {
    const metrics = new MetricsCollector();
    for (let i = 0; i < 20; i++) metrics.record("bad", 10, 100, i < 3);
    for (let i = 0; i < 10; i++) metrics.record("fine", 10, 100, i < 1);
    expect(metrics.summary().warnings).toEqual(["Tool 'bad' has 15% error rate (3/20 calls)"]);
  });

  it("warns when p95 is above 2,000 ms, except for configured network tools", () => {
    const metrics = new MetricsCollector({ networkTools: ["web__fetch", "search"] });
    metrics.record("files__read", 2500, 10, false);
    metrics.record("web__fetch", 5000, 10, false);
    metrics.record("other__search", 5000, 10, false);
    expect(metrics.summary().warnings).toEqual(["Tool 'files__read' p95 latency is 2500ms"]);
  });

  it("keeps only the last 1,000 samples per tool, but counts every call", () => {
    const metrics = new MetricsCollector();
    for (let i = 0; i < 2000; i++) metrics.record("t", i, 100, false);
    const t = metrics.summary(true).perTool?.t;
    expect(t?.latency.min).toBe(1000);
    expect(t?.latency.max).toBe(1999);
    expect(t?.callCount).toBe(2000);
  });

  it("names the slowest tool by average latency and the most-errored by error count", () => {
    const metrics = new MetricsCollector();
    metrics.record("fast", 1, 0, true);
    metrics.record("fast", 1, 0, true);
    metrics.record("slow", 300, 0, false);
    const summary = metrics.summary();
    expect(summary.slowestTool).toBe("slow");
    expect(summary.mostErroredTool).toBe("fast");
    expect(summary.perTool).toBeUndefined();
  });

  it("reports uptime and calls per minute from its clock", () => {
    let now = 1_000_000;
    const metrics = new MetricsCollector({ clock: () => now });
    for (let i = 0; i < 30; i++) metrics.record("t", 1, 0, false);
    expect(metrics.summary().callsPerMinute).toBe(30); // first minute: the calls so far
    now += 3 * 60_000;
    const summary = metrics.summary();
    expect(summary.sessionUptimeMinutes).toBe(3);
    expect(summary.callsPerMinute).toBe(10);
  });
});
