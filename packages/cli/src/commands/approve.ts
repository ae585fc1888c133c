import { hostname, userInfo } from "node:os";
import type { ApprovalBook } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson } from "../output.js";

/** Options of `flow approve`. */
export interface ApproveOptions {
  all?: boolean;
  deny?: boolean;
  reason?: string;
  store?: string;
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
  book?: ApprovalBook,
): Promise<ExitCode> {
  const { FileRunStore, decideApprovals } = await import("@meshflow/runtime/host");
  const store = new FileRunStore(options.store);
  let approvals = book;
  if (!approvals) {
    // An unknown run is refused with its own error (run_not_found, with suggestions).
    await store.read(runId);
    approvals = store.approvals(runId);
  }
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
      `${plural(decisions.length, "call")} ${verb}; the run's waiting process goes on, or continue it with: flow resume ${runId}`,
    );
  }
  return EXIT.ok;
}
