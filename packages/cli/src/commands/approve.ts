import { hostname, userInfo } from "node:os";
import { MeshflowError } from "@meshflow/core";
import type { ApprovalBook } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";
import { onRedis } from "./onRedis.js";

/** Options of `flow approve`. */
export interface ApproveOptions {
  all?: boolean;
  deny?: boolean;
  reason?: string;
  store?: string;
  /** A queued run's Redis (`flow enqueue`): its approvals are kept there. */
  redis?: string;
  redisPrefix: string;
  json?: boolean;
}

/** Who decides, as the approvals book records it: the command, the user and the machine. */
function decidedBy(via: string): string {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // A user without a passwd entry (a container): the pid still says which process it was.
  }
  return `${via} (${user}@${hostname()}, pid ${process.pid})`;
}

/**
 * `flow approve <runId> [<callKey>… | --all] [--deny] [--reason t]`: records a person's decision about
 * calls of a run that wait for approval, each bound to the arguments it waits with. The run's waiting
 * process (`--wait-for-approval`) picks it up; otherwise `flow resume` does: an approved call runs once,
 * a denied one gets `approval_denied` with the reason. Exit 2 for an unknown run or call key (listing
 * the waiting keys), 1 when the run waits for nothing.
 */
export async function approveCommand(
  runId: string,
  keys: readonly string[],
  options: ApproveOptions,
  output: Output,
): Promise<ExitCode> {
  const { redis } = options;
  if (redis)
    return onRedis(redis, () =>
      onQueuedRun(redis, runId, options, (book) => decide(book, runId, keys, options, output)),
    );
  const { FileRunStore } = await import("@meshflow/runtime/host");
  const store = new FileRunStore(options.store);
  // An unknown run is refused with its own error (run_not_found, with suggestions).
  await store.read(runId);
  return decide(store.approvals(runId), runId, keys, options, output);
}

/** With the approvals book of a queued run in Redis (`run_not_found` for a run the board does not know). */
async function onQueuedRun<T>(
  url: string,
  runId: string,
  options: ApproveOptions,
  use: (book: ApprovalBook) => Promise<T>,
): Promise<T> {
  const { connectRedis, RunQueue } = await import("@meshflow/queue");
  const redis = await connectRedis(url, { role: "client" });
  const settings = { prefix: options.redisPrefix };
  try {
    const queue = await RunQueue.open({ redis, settings });
    try {
      if (!(await queue.board.get(runId)))
        throw new MeshflowError("run_not_found", `no queued run "${runId}" in Redis (prefix ${options.redisPrefix})`);
    } finally {
      await queue.close();
    }
    const { queuedApprovals } = await import("../queue/runJobProcessor.js");
    return await use(queuedApprovals({ redis, settings }, runId));
  } finally {
    redis.disconnect();
  }
}

async function decide(
  approvals: ApprovalBook,
  runId: string,
  keys: readonly string[],
  options: ApproveOptions,
  output: Output,
): Promise<ExitCode> {
  const { decideApprovals } = await import("@meshflow/runtime/host");
  const decisions = await decideApprovals(approvals, runId, {
    keys,
    ...(options.all ? { all: true } : {}),
    approved: options.deny !== true,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    by: decidedBy("flow approve"),
  });
  const verb = options.deny ? "denied" : "approved";
  if (options.json) printJson(output, { runId, decisions });
  else {
    for (const d of decisions) output.out(`${verb} ${d.key}${d.reason ? ` (${d.reason})` : ""}`);
    output.err(
      options.redis
        ? `${plural(decisions.length, "call")} ${verb}; a flow worker takes the queued run up again`
        : `${plural(decisions.length, "call")} ${verb}; the run's waiting process goes on, or continue it with: flow resume ${runId}`,
    );
  }
  return EXIT.ok;
}
