import { eventTime, MeshflowError } from "@meshflow/core";
import { type ApprovalBook, type ApprovalDecision, type ApprovalRequest, approvalLedger } from "./ApprovalBook.js";

/** A decision about some of a run's waiting calls. */
export interface ApprovalChoice {
  /** Call keys (whole, or without the `<runId>/` they start with); empty with `all`. */
  keys: readonly string[];
  /** Every waiting call. */
  all?: boolean;
  approved: boolean;
  reason?: string;
  /** Who decides and from where (`flow approve (user@host, pid 1)`, `flow console`…). */
  by: string;
  /**
   * The arguments the person was shown (one key only): a call whose arguments changed since is refused
   * (`approval_stale`), since the decision would be about other arguments.
   */
  argsDigest?: string;
}

/** A waiting call as messages list it. */
const listed = (r: ApprovalRequest) => `${r.key} (${r.storyId} step ${r.step}: ${r.tool})`;

/**
 * Records a person's decision about waiting calls of a run, each bound to the arguments its request
 * carries (a call that comes back with other arguments needs a new decision). Refuses, writing
 * nothing: a run that waits for nothing (`approval_not_pending`), an unknown key or no keys without
 * `all` (`usage`, listing the waiting keys), arguments changed since they were shown (`approval_stale`).
 */
export async function decideApprovals(
  book: ApprovalBook,
  runId: string,
  choice: ApprovalChoice,
): Promise<ApprovalDecision[]> {
  const { pending } = approvalLedger(await book.lines());
  if (!pending.length)
    throw new MeshflowError("approval_not_pending", `run ${runId} waits for no approval: nothing to decide`);
  const waiting = pending.map(listed).join(", ");
  if (choice.all && choice.keys.length) throw new MeshflowError("usage", "give call keys or --all, not both");
  if (!choice.all && !choice.keys.length)
    throw new MeshflowError("usage", `name the calls to decide, or --all; run ${runId} waits for: ${waiting}`, {
      details: { pending: pending.map((r) => r.key) },
    });
  const chosen = choice.all
    ? pending
    : choice.keys.map((given) => {
        const key = given.startsWith(`${runId}/`) ? given : `${runId}/${given}`;
        const found = pending.find((r) => r.key === key);
        if (!found)
          throw new MeshflowError(
            "usage",
            `run ${runId} has no call ${given} waiting for approval; it waits for: ${waiting}`,
            {
              details: { pending: pending.map((r) => r.key) },
            },
          );
        return found;
      });
  if (choice.argsDigest !== undefined) {
    const stale = chosen.find((r) => r.argsDigest !== choice.argsDigest);
    if (stale)
      throw new MeshflowError(
        "approval_stale",
        `${stale.key}: its arguments changed since they were shown (${choice.argsDigest}, now ${stale.argsDigest}): look at the call again and decide anew`,
      );
  }
  const time = eventTime();
  const decisions = chosen.map(
    (r): ApprovalDecision => ({
      type: "decided",
      time,
      key: r.key,
      argsDigest: r.argsDigest,
      approved: choice.approved,
      ...(choice.reason !== undefined ? { reason: choice.reason } : {}),
      by: choice.by,
    }),
  );
  for (const d of decisions) await book.append(d);
  return decisions;
}
