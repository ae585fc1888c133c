import { type Plan, type Prd, parseQualifiedName, stepKey, type ToolDescriptor } from "@meshflow/core";
import type { ApprovalPolicy } from "@meshflow/runtime/host";
import { approvalReason } from "@meshflow/runtime/host";

/** Whether one scripted call of a step would wait for a person's approval in a run. */
export interface CallApproval {
  /** 1-based position among the step's scripted calls. */
  call: number;
  tool: string;
  /** `yes`, `no`, or `unknown`: it depends on annotations or capabilities not discovered (`--discover`). */
  needs: "yes" | "no" | "unknown";
  /** The mode or rule that asks for it. */
  reason?: string;
}

/** What `flow plan --discover` found of the tools: descriptors and capability ids by qualified name. */
export interface KnownTools {
  descriptors: ReadonlyMap<string, ToolDescriptor>;
  capabilities: ReadonlyMap<string, readonly string[]>;
}

/**
 * Which scripted calls of each step would wait for approval under `policy` (by `<story>/<step>`).
 * Without discovered tools a call whose answer depends on its tool's annotations (`--approve
 * destructive`) or capabilities is `unknown`.
 */
export function planApprovals(
  prd: Prd,
  plan: Plan,
  policy: ApprovalPolicy,
  known: KnownTools | undefined,
): Map<string, CallApproval[]> {
  const out = new Map<string, CallApproval[]>();
  for (const story of plan.stories) {
    if (story.skipped) continue;
    const scripted = prd.userStories[story.index]?.calls ?? {};
    for (const step of story.steps) {
      const calls = scripted[stepKey(step.step)] ?? [];
      if (!calls.length) continue;
      out.set(
        `${story.id}/${step.step}`,
        calls.map((c, i) => {
          const args = (c.args ?? {}) as Record<string, unknown>;
          const descriptor =
            known?.descriptors.get(c.tool) ??
            [...(known?.descriptors.values() ?? [])].find((t) => t.name === c.tool && step.servers.includes(t.server));
          const parsed = parseQualifiedName(c.tool);
          const tool = descriptor ?? {
            server: parsed?.server ?? "",
            name: parsed?.tool ?? c.tool,
            qualifiedName: c.tool,
          };
          const caps = descriptor ? (known?.capabilities.get(descriptor.qualifiedName) ?? []) : [];
          const reason = approvalReason(policy, tool, args, caps);
          const depends =
            !descriptor && (policy.approve === "destructive" || policy.rules.some((r) => r.capability !== undefined));
          const needs = reason ? "yes" : depends ? "unknown" : "no";
          return { call: i + 1, tool: descriptor?.qualifiedName ?? c.tool, needs, ...(reason ? { reason } : {}) };
        }),
      );
    }
  }
  return out;
}
