import { join, resolve } from "node:path";
import type { ApprovalPolicy, ApproveMode, RunDependencies } from "@meshflow/runtime/host";
import { loadApprovalPolicy } from "@meshflow/runtime/host";

/** The approval flags of `flow run` (and `flow plan`). */
export interface ApprovalFlags {
  /** `--approve`: none, destructive or all. */
  approve?: ApproveMode;
  /** `--approvals <file>`: the rules; default `<store>/approvals.yaml` when present. */
  approvals?: string;
  store?: string;
}

/**
 * What needs approval in a new run: `--approve` and the rules of `--approvals` (required to exist) or
 * of `.flow/approvals.yaml` (the run store's folder; optional), validated; recorded with the run.
 */
export function approvalPolicy(options: ApprovalFlags): ApprovalPolicy {
  const given = options.approvals !== undefined;
  const file = resolve(options.approvals ?? join(options.store ?? ".flow", "approvals.yaml"));
  return loadApprovalPolicy(options.approve ?? "none", file, given);
}

/** The run's approvals: the policy and how long this process waits (`--wait-for-approval`). */
export function approvalDeps(
  policy: ApprovalPolicy | undefined,
  wait: number | true | undefined,
): Pick<RunDependencies, "approvals"> {
  if (!policy) return {};
  const waitMs = wait === true ? Number.POSITIVE_INFINITY : (wait ?? 0);
  return { approvals: { policy, waitMs } };
}
