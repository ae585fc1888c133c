import type { ApprovalDecision, ApprovalRequest } from "@meshflow/runtime/host";

// The timeline's approval marks: from the run's approvals book, the call that waits for a person's
// decision (and its story) is marked amber; calls approved or denied say so in their hover card.

/** What a person's approval of a call came to: still waiting, approved or denied. */
export interface SpanApproval {
  state: "waiting" | "approved" | "denied";
  tool: string;
  reason?: string;
  by?: string;
}

/** The run's approvals book, as `GET /api/runs/:runId/approvals` answers it. */
export interface TimelineApprovals {
  pending: readonly ApprovalRequest[];
  decisions: readonly ApprovalDecision[];
}

/** The fields of a timeline bar that approvals read and mark. */
interface Marked {
  kind: string;
  key: string | undefined;
  story: string;
  label: string;
  mark: "refused" | "failed" | "approval" | undefined;
  approval: SpanApproval | undefined;
}

/** The hover line of an approval: `filesystem__write_file waiting for approval`, `… approved by …: reason`. */
export function approvalLine(a: SpanApproval): string {
  if (a.state === "waiting") return `${a.tool} waiting for approval`;
  return `${a.tool} ${a.state}${a.by ? ` by ${a.by}` : ""}${a.reason ? `: ${a.reason}` : ""}`;
}

/**
 * Marks the calls the approvals book speaks of: a call that waits (amber) and its story, and calls
 * approved or denied. A call is found by its idempotency key.
 */
export function markApprovals(spans: readonly Marked[][], approvals: TimelineApprovals): void {
  const calls = new Map<string, Marked>();
  const stories = new Map<string, Marked>();
  for (const rows of spans)
    for (const s of rows) {
      if (s.kind === "call" && s.key) calls.set(s.key, s);
      if (s.kind === "story") stories.set(s.story, s);
    }
  const requested = new Map<string, ApprovalRequest>();
  for (const r of approvals.pending) {
    requested.set(r.key, r);
    const call = calls.get(r.key);
    if (call) {
      call.mark = "approval";
      call.approval = { state: "waiting", tool: r.tool };
    }
    const story = stories.get(r.storyId);
    if (story) {
      story.mark = "approval";
      story.approval = { state: "waiting", tool: r.tool };
    }
  }
  for (const d of approvals.decisions) {
    if (requested.has(d.key)) continue;
    const call = calls.get(d.key);
    if (!call) continue;
    call.approval = {
      state: d.approved ? "approved" : "denied",
      tool: call.label,
      by: d.by,
      ...(d.reason ? { reason: d.reason } : {}),
    };
    if (call.mark === "approval") call.mark = d.approved ? undefined : "refused";
  }
}
