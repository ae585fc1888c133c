import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";

/** Summary statistics of repeated measurements, in milliseconds. */
export interface Stats {
  runs: number;
  p50: number;
  p99: number;
  min: number;
  mean: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index] ?? 0;
}

/** The median of samples (of an even count, the upper of the two middle ones). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/**
 * `rounds` measurements of two sides, each round starting with the side the last one ended with, so
 * neither always runs first (or last) on a busy machine: the samples of `a` and of `b`, in order.
 */
export async function alternating<A, B>(
  rounds: number,
  a: () => A | Promise<A>,
  b: () => B | Promise<B>,
): Promise<[A[], B[]]> {
  const as: A[] = [];
  const bs: B[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return [as, bs];
}

/** Statistics of a list of samples (ms). */
export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || 1);
  return {
    runs: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    min: sorted[0] ?? 0,
    mean,
  };
}

/** Times `fn` `runs` times after `warmup` untimed runs. */
export async function timeAsync(fn: () => Promise<unknown> | unknown, runs: number, warmup = 3): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return stats(samples);
}

/** Times a whole process (spawn to exit) `runs` times; fails loudly if the command does. */
export function timeProcess(command: string, args: readonly string[], runs: number, okCodes = [0]): Stats {
  const samples: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const start = performance.now();
    const result = spawnSync(command, args, { stdio: "ignore" });
    const elapsed = performance.now() - start;
    if (!okCodes.includes(result.status ?? -1))
      throw new Error(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}`);
    if (i > 0) samples.push(elapsed); // the first run warms the file cache
  }
  return stats(samples);
}

/** One line of a benchmark report. */
export interface Row {
  suite: string;
  case: string;
  value: number;
  unit: string;
  /** What this row is compared with, measured in the same run (or a fixed goal). */
  baseline?: { label: string; value: number };
  /** Ratio value / baseline, and the goal it must meet. */
  goal?: string;
  pass?: boolean;
}
