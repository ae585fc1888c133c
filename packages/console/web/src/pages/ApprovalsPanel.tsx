import type { ApprovalDecision, ApprovalRequest } from "@meshflow/runtime/host";
import { useState } from "preact/hooks";
import { ApiError, api } from "../api.js";

/** What `GET /api/runs/:runId/approvals` answers. */
export interface RunApprovals {
  pending: ApprovalRequest[];
  decisions: ApprovalDecision[];
}

/**
 * The calls of a run that wait for a person's approval, each with an Approve and a Deny button and a
 * reason; a decision is bound to the arguments shown here. Decisions made so far are listed below.
 */
export function ApprovalsPanel({
  runId,
  approvals,
  decided,
}: {
  runId: string;
  approvals: RunApprovals | undefined;
  /** Called after a decision was recorded (the page reloads what it shows). */
  decided: (note: string) => void;
}) {
  const [reasons, setReasons] = useState<Record<string, string>>({});
  if (!approvals || (!approvals.pending.length && !approvals.decisions.length)) return null;
  const decide = async (request: ApprovalRequest, approved: boolean) => {
    const reason = reasons[request.key]?.trim();
    try {
      await api(`/api/runs/${encodeURIComponent(runId)}/approvals`, {
        method: "POST",
        body: { key: request.key, argsDigest: request.argsDigest, approved, ...(reason ? { reason } : {}) },
      });
      decided(
        `${approved ? "approved" : "denied"} ${request.tool} (${request.key}); the run's waiting process goes on, or Resume continues it`,
      );
    } catch (e) {
      decided(e instanceof ApiError ? `${e.message} (${e.code})` : String(e));
    }
  };
  return (
    <section aria-label="Approvals">
      {approvals.pending.length ? (
        <>
          <h2>Waiting for approval</h2>
          <ul class="approvals">
            {approvals.pending.map((r) => (
              <li key={r.key} data-key={r.key}>
                <p>
                  <strong>{r.tool}</strong> · {r.storyId} step {r.step} · {r.specialist}{" "}
                  <span class="muted">
                    ({r.key}; {r.rule})
                  </span>
                </p>
                <pre>{JSON.stringify(r.args, null, 2)}</pre>
                <label>
                  Reason{" "}
                  <input
                    type="text"
                    value={reasons[r.key] ?? ""}
                    onInput={(e) => setReasons({ ...reasons, [r.key]: (e.target as HTMLInputElement).value })}
                  />
                </label>{" "}
                <button type="button" onClick={() => decide(r, true)}>
                  Approve
                </button>{" "}
                <button type="button" class="danger" onClick={() => decide(r, false)}>
                  Deny
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {approvals.decisions.length ? (
        <>
          <h2>Approval decisions</h2>
          <ul class="approvals-decided">
            {approvals.decisions.map((d) => (
              <li key={`${d.key}|${d.time}`}>
                {d.approved ? "approved" : "denied"} <code>{d.key}</code> {d.time} by {d.by}
                {d.reason ? `: ${d.reason}` : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
