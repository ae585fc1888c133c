import type { Clock } from "./types.js";

/** Latency and payload samples kept per tool: old samples age out, memory stays bounded. */
const METRICS_RING_SIZE = 1000;
/** A tool whose error rate is above this gets a warning. */
const ERROR_RATE_WARNING = 0.1;
/** A tool whose p95 latency is above this (ms) gets a warning, unless it is a network tool. */
const SLOW_P95_WARNING_MS = 2000;

/** Latency statistics of one tool over its ring buffer, in whole milliseconds. */
export interface LatencyStats {
  avg: number;
  min: number;
  max: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Per-tool figures of a verbose {@link MetricsSummary}. */
export interface ToolMetricsSummary {
  callCount: number;
  errorCount: number;
  /** errors / calls, 4 decimals. */
  errorRate: number;
  latency: LatencyStats;
  avgPayloadBytes: number;
}

/** The session's metrics: totals, the slowest and most-errored tool, warnings, and per tool when verbose. */
export interface MetricsSummary {
  sessionUptimeMinutes: number;
  totalToolCalls: number;
  overallErrorRate: number;
  /** Calls per minute of uptime (in the first minute: the calls so far). */
  callsPerMinute: number;
  /** By average latency. */
  slowestTool: string | null;
  /** By error count. */
  mostErroredTool: string | null;
  perTool?: Record<string, ToolMetricsSummary>;
  warnings: string[];
}

/** Options of {@link MetricsCollector}. */
export interface MetricsOptions {
  /** Tools (qualified or bare names) expected to be slow, e.g. network-bound ones: no p95 warning. */
  networkTools?: Iterable<string>;
  /** Wall clock for uptime (default `Date.now`). */
  clock?: Clock;
  ringSize?: number;
}

class ToolMetrics {
  callCount = 0;
  errorCount = 0;
  /** Ring buffers: `next` is where the next sample goes, `filled` how many slots hold one. */
  readonly latencies: Float64Array;
  readonly payloads: Float64Array;
  next = 0;
  filled = 0;

  constructor(size: number) {
    this.latencies = new Float64Array(size);
    this.payloads = new Float64Array(size);
  }
}

/** Nearest-rank percentile of ascending values: p50 of 1..100 is 50, p95 is 95. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index] ?? 0;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** In-memory per-tool metrics of one session: call and error counts, latency percentiles, payload sizes. */
export class MetricsCollector {
  private readonly tools = new Map<string, ToolMetrics>();
  private readonly networkTools: ReadonlySet<string>;
  private readonly clock: Clock;
  private readonly ringSize: number;
  private readonly startedAt: number;

  constructor(options: MetricsOptions = {}) {
    this.networkTools = new Set(options.networkTools ?? []);
    this.clock = options.clock ?? Date.now;
    this.ringSize = options.ringSize ?? METRICS_RING_SIZE;
    this.startedAt = this.clock();
  }

  /** Records one call of `tool` (a refusal counts as an error of that tool). */
  record(tool: string, latencyMs: number, payloadBytes: number, isError: boolean): void {
    let m = this.tools.get(tool);
    if (!m) {
      m = new ToolMetrics(this.ringSize);
      this.tools.set(tool, m);
    }
    m.callCount++;
    if (isError) m.errorCount++;
    m.latencies[m.next] = latencyMs;
    m.payloads[m.next] = payloadBytes;
    m.next = (m.next + 1) % this.ringSize;
    if (m.filled < this.ringSize) m.filled++;
  }

  /** Minutes since the collector was created. */
  uptimeMinutes(): number {
    return (this.clock() - this.startedAt) / 60_000;
  }

  /** Forgets every sample and restarts the session clock's count (not its start). */
  reset(): void {
    this.tools.clear();
  }

  private isNetworkTool(name: string): boolean {
    if (this.networkTools.has(name)) return true;
    const at = name.indexOf("__");
    return at > 0 && this.networkTools.has(name.slice(at + 2));
  }

  /** The summary; `verbose` adds per-tool figures. */
  summary(verbose = false): MetricsSummary {
    const warnings: string[] = [];
    const perTool: Record<string, ToolMetricsSummary> = {};
    let totalCalls = 0;
    let totalErrors = 0;
    let slowestTool: string | null = null;
    let slowestAvg = 0;
    let mostErroredTool: string | null = null;
    let mostErrors = 0;
    for (const [name, m] of this.tools) {
      totalCalls += m.callCount;
      totalErrors += m.errorCount;
      const sorted = m.latencies.slice(0, m.filled).sort();
      let sum = 0;
      for (const v of sorted) sum += v;
      const avg = sorted.length ? sum / sorted.length : 0;
      const errorRate = m.callCount ? m.errorCount / m.callCount : 0;
      if (avg > slowestAvg) {
        slowestAvg = avg;
        slowestTool = name;
      }
      if (m.errorCount > mostErrors) {
        mostErrors = m.errorCount;
        mostErroredTool = name;
      }
      const p95 = Math.round(percentile(sorted, 0.95));
      if (errorRate > ERROR_RATE_WARNING)
        warnings.push(
          `Tool '${name}' has ${Math.round(errorRate * 100)}% error rate (${m.errorCount}/${m.callCount} calls)`,
        );
      if (p95 > SLOW_P95_WARNING_MS && !this.isNetworkTool(name))
        warnings.push(`Tool '${name}' p95 latency is ${p95}ms`);
      if (verbose) {
        let payloadSum = 0;
        for (let i = 0; i < m.filled; i++) payloadSum += m.payloads[i] ?? 0;
        perTool[name] = {
          callCount: m.callCount,
          errorCount: m.errorCount,
          errorRate: round4(errorRate),
          latency: {
            avg: Math.round(avg),
            min: Math.round(sorted[0] ?? 0),
            max: Math.round(sorted[sorted.length - 1] ?? 0),
            p50: Math.round(percentile(sorted, 0.5)),
            p95,
            p99: Math.round(percentile(sorted, 0.99)),
          },
          avgPayloadBytes: m.filled ? Math.round(payloadSum / m.filled) : 0,
        };
      }
    }
    const uptime = this.uptimeMinutes();
    const summary: MetricsSummary = {
      sessionUptimeMinutes: Math.round(uptime * 100) / 100,
      totalToolCalls: totalCalls,
      overallErrorRate: totalCalls ? round4(totalErrors / totalCalls) : 0,
      callsPerMinute: Math.round((totalCalls / Math.max(uptime, 1)) * 100) / 100,
      slowestTool,
      mostErroredTool,
      warnings,
    };
    if (verbose) summary.perTool = perTool;
    return summary;
  }
}
