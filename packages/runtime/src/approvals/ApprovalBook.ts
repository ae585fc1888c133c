import { z } from "zod";

/** A call that waits for a person's approval, as its run recorded it (arguments with secrets masked). */
const ApprovalRequestSchema = z.strictObject({
  type: z.literal("requested"),
  time: z.string(),
  /** The call's idempotency key (`<runId>/<story>/step<n>/<seq>`). */
  key: z.string(),
  storyId: z.string(),
  step: z.number().int(),
  consult: z.string().optional(),
  specialist: z.string(),
  /** Qualified tool name. */
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** The digest of the call's real arguments: a decision holds for these arguments only. */
  argsDigest: z.string(),
  /** Why it needs approval (the mode or the rule). */
  rule: z.string(),
});
/** One request line of an approvals book. */
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** A person's decision about a waiting call: bound to the arguments they saw (`argsDigest`). */
const ApprovalDecisionSchema = z.strictObject({
  type: z.literal("decided"),
  time: z.string(),
  key: z.string(),
  argsDigest: z.string(),
  approved: z.boolean(),
  /** Why (`--reason`): a denial's reason is the error the specialist gets. */
  reason: z.string().optional(),
  /** Who decided and from where: `flow approve (user@host, pid 123)`, `flow console`, `flow serve`. */
  by: z.string(),
});
/** One decision line of an approvals book. */
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** A line of an approvals book. */
export const ApprovalLineSchema = z.discriminatedUnion("type", [ApprovalRequestSchema, ApprovalDecisionSchema]);
/** A line of an approvals book. */
export type ApprovalLine = z.infer<typeof ApprovalLineSchema>;

/**
 * Where a run's approval requests and decisions are kept, durably, readable and writable from any
 * process (the run's own, `flow approve`, the console, `flow serve`): a file beside the run's journal,
 * or Redis for queued runs. Lines are only appended.
 */
export interface ApprovalBook {
  /** Every line so far, in order. */
  lines(): Promise<ApprovalLine[]>;
  /** Appends a line; durable when it resolves. */
  append(line: ApprovalLine): Promise<void>;
}

/** What a book says of its calls: the latest request of each key and the decisions made. */
export interface ApprovalLedger {
  /** Requests with no decision for their arguments, in the order they were made. */
  pending: ApprovalRequest[];
  /** The latest request of each key. */
  requests: Map<string, ApprovalRequest>;
  /** Every decision, in order. */
  decisions: ApprovalDecision[];
}

/** Reads a book's lines into what is pending and what was decided. */
export function approvalLedger(lines: readonly ApprovalLine[]): ApprovalLedger {
  const requests = new Map<string, ApprovalRequest>();
  const decisions: ApprovalDecision[] = [];
  for (const line of lines) {
    if (line.type === "requested") {
      requests.delete(line.key);
      requests.set(line.key, line);
    } else decisions.push(line);
  }
  const pending = [...requests.values()].filter((r) => !decisionFor(decisions, r.key, r.argsDigest));
  return { pending, requests, decisions };
}

/** The latest decision about a call with exactly these arguments, if any. */
export function decisionFor(
  decisions: readonly ApprovalDecision[],
  key: string,
  argsDigest: string,
): ApprovalDecision | undefined {
  for (let i = decisions.length - 1; i >= 0; i--) {
    const d = decisions[i];
    if (d && d.key === key && d.argsDigest === argsDigest) return d;
  }
  return undefined;
}

/** The latest decision about a call whatever its arguments (a stale one when they differ). */
export function latestDecision(decisions: readonly ApprovalDecision[], key: string): ApprovalDecision | undefined {
  for (let i = decisions.length - 1; i >= 0; i--) {
    const d = decisions[i];
    if (d?.key === key) return d;
  }
  return undefined;
}
