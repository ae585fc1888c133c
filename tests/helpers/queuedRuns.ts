import { connectRedis, type QueuedRun, RunBoard } from "@meshflow/queue";
import { until } from "./flowWorker.js";
import type { FlowWorkspace } from "./flowWorkspace.js";

/** `flow enqueue <args> --redis <url> --json` in the workspace; the queued run ids in order. */
export async function enqueue(ws: FlowWorkspace, redisUrl: string, args: readonly string[]): Promise<string[]> {
  const result = await ws.flow(["enqueue", ...args, "--redis", redisUrl, "--json"]);
  if (result.code !== 0) throw new Error(`flow enqueue exited ${result.code}: ${result.stderr}${result.stdout}`);
  const { runs } = JSON.parse(result.stdout) as { runs: Array<{ runId: string }> };
  return runs.map((r) => r.runId);
}

/** Waits until a queued run has finished (passed or failed), reading the run board in Redis. */
export async function finishedRun(
  redisUrl: string,
  runId: string,
  options: { prefix?: string; timeoutMs?: number } = {},
): Promise<QueuedRun> {
  const redis = await connectRedis(redisUrl, { role: "worker" });
  try {
    const board = new RunBoard(redis, options.prefix ? { prefix: options.prefix } : {});
    return await until(
      `queued run ${runId} to finish`,
      async () => {
        const run = await board.get(runId);
        return run && (run.status === "passed" || run.status === "failed") ? run : undefined;
      },
      options.timeoutMs ?? 60_000,
    );
  } finally {
    redis.disconnect();
  }
}

/** `flow status --redis <url> <runId> --json`: the run and its stories as the CLI reports them. */
export async function queuedStatus(
  ws: FlowWorkspace,
  redisUrl: string,
  runId: string,
  prefix?: string,
): Promise<{ run: Omit<QueuedRun, "stories">; stories: QueuedRun["stories"] }> {
  const result = await ws.flow([
    "status",
    "--redis",
    redisUrl,
    runId,
    "--json",
    ...(prefix ? ["--redis-prefix", prefix] : []),
  ]);
  if (result.code !== 0) throw new Error(`flow status exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as { run: Omit<QueuedRun, "stories">; stories: QueuedRun["stories"] };
}
