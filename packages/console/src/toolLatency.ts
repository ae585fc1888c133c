import type { RunEvent } from "@meshflow/core";

/** Latency percentiles and error rate of one tool over the runs read (`GET /api/health`). */
export interface ToolLatency {
  tool: string;
  calls: number;
  /** Results with `isError`. */
  errors: number;
  /** Calls refused (guard, policy, schema, confirmation…). */
  refused: number;
  /** (errors + refused) / (calls + refused), 0…1. */
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
}

/** The value below which `q` (0…1) of the sorted values fall (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? 0;
}

/**
 * Per-tool p50/p95/p99 of `tool.result` durations and error rates, from runs' events. Results
 * replayed from a journal are left out: the tool did not run again.
 */
export function toolLatency(runs: Iterable<readonly RunEvent[]>): ToolLatency[] {
  const by = new Map<string, { durations: number[]; errors: number; refused: number }>();
  const of = (tool: string) => {
    let entry = by.get(tool);
    if (!entry) {
      entry = { durations: [], errors: 0, refused: 0 };
      by.set(tool, entry);
    }
    return entry;
  };
  for (const events of runs)
    for (const e of events) {
      if (e.type === "tool.result" && !e.replayed) {
        const entry = of(e.tool);
        entry.durations.push(e.durationMs);
        if (e.isError) entry.errors++;
      } else if (e.type === "tool.refused") of(e.tool).refused++;
    }
  return [...by]
    .map(([tool, { durations, errors, refused }]) => {
      const sorted = durations.sort((a, b) => a - b);
      const attempts = sorted.length + refused;
      return {
        tool,
        calls: sorted.length,
        errors,
        refused,
        errorRate: attempts ? (errors + refused) / attempts : 0,
        p50: percentile(sorted, 0.5),
        p95: percentile(sorted, 0.95),
        p99: percentile(sorted, 0.99),
      };
    })
    .sort((a, b) => a.tool.localeCompare(b.tool));
}
