import { MeshflowError } from "@meshflow/core";
import type { QueuedRun } from "@meshflow/queue";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { onRedis } from "./onRedis.js";
import { MARK, printStories } from "./runReport.js";

/** Options of `flow status --redis`. */
export interface QueuedStatusOptions {
  redis: string;
  redisPrefix: string;
  json?: boolean;
}

function counts(run: QueuedRun): string {
  const c = run.counts;
  return c ? `${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.skipped} skipped` : "";
}

function printRun(run: QueuedRun, output: Output): void {
  output.out(
    `run ${run.runId}  ${run.status}  (${run.file}, ${run.mode === "per-story" ? "one job per story" : "one job"})`,
  );
  output.out(
    `queued ${run.createdAt}${run.startedAt ? `, started ${run.startedAt}` : ""}${run.finishedAt ? `, finished ${run.finishedAt}` : ""}` +
      `${run.worker ? `; worker ${run.worker}` : ""}${run.attempts > 1 ? `; ${run.attempts} attempts` : ""}${run.counts ? `; ${counts(run)}` : ""}`,
  );
  if (run.error) output.out(`${run.status === "queued" ? "note" : "error"}: ${run.error}`);
  printStories(output, run.stories);
}

/** `flow status --redis <url> [runId]`: queued, active, done and failed runs with their stories. */
export function queuedStatusCommand(
  runId: string | undefined,
  options: QueuedStatusOptions,
  output: Output,
): Promise<ExitCode> {
  return onRedis(options.redis, () => queuedStatus(runId, options, output));
}

async function queuedStatus(
  runId: string | undefined,
  options: QueuedStatusOptions,
  output: Output,
): Promise<ExitCode> {
  const { connectRedis, RunQueue } = await import("@meshflow/queue");
  const redis = await connectRedis(options.redis, { role: "client" });
  const queue = await RunQueue.open({ redis, settings: { prefix: options.redisPrefix } }).catch(async (error) => {
    redis.disconnect();
    throw error;
  });
  try {
    if (runId) {
      const run = await queue.board.get(runId);
      if (!run)
        throw new MeshflowError("run_not_found", `no queued run "${runId}" in Redis (prefix ${options.redisPrefix})`);
      if (options.json) {
        const { stories, ...record } = run;
        printJson(output, { run: record, stories });
      } else printRun(run, output);
      return EXIT.ok;
    }
    const [runs, queues] = await Promise.all([queue.board.list(50), queue.counts()]);
    if (options.json) {
      printJson(output, { queues, runs });
      return EXIT.ok;
    }
    const line = (name: string, c: Record<string, number>) =>
      `${name}: ${c.waiting ?? 0} waiting, ${c.active ?? 0} active, ${c.delayed ?? 0} delayed, ${c.completed ?? 0} completed, ${c.failed ?? 0} failed`;
    output.out(line("runs queue", queues.runs));
    output.out(line("calls queue", queues.calls));
    const groups: Array<[string, QueuedRun["status"]]> = [
      ["queued", "queued"],
      ["active", "running"],
      ["done", "passed"],
      ["failed", "failed"],
    ];
    for (const [title, status] of groups) {
      const group = runs.filter((r) => r.status === status);
      if (!group.length) continue;
      output.out(`\n${title} (${group.length})`);
      for (const run of group) {
        const stories = run.stories.map((s) => `${MARK[s.status] ?? "?"}${s.id}`).join(" ");
        output.out(
          `  ${run.runId}  ${run.file}  ${stories}${run.worker ? `  [${run.worker}]` : ""}${run.error ? `  ${run.error}` : ""}`,
        );
      }
    }
    if (!runs.length) output.out("\nno queued runs");
    return EXIT.ok;
  } finally {
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}
