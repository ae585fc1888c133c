import type { Guard } from "@meshflow/mcp";
import { CORE_TOOLSET, defineLocalTool, jsonResult, type ServedTool } from "@meshflow/mcp/server";
import { z } from "zod";

/**
 * Own tools the guard never refuses: the panic button, its release, the health report, and the run
 * status (read-only; after a stop one needs to see which runs stopped).
 */
export const UNGUARDED_TOOLS = [
  "flow_diagnose",
  "flow_emergency_stop",
  "flow_emergency_unlock",
  "flow_run_status",
] as const;

/**
 * `flow_emergency_stop` and `flow_emergency_unlock`. Stop is one call on purpose (a panic button
 * that asked for confirmation would be slower when it matters); unlock is destructive, so clients
 * ask their user, and clients that do not read annotations need a confirmation token.
 */
export function safetyTools(guard: Guard, options: { onStop?: () => string[] } = {}): ServedTool[] {
  return [
    defineLocalTool({
      name: "flow_emergency_stop",
      toolset: CORE_TOOLSET,
      title: "Emergency stop",
      rich: "Locks the guard: every guarded tool call (all proxied tools, meshflow's run tools and the tool calls of runs) is refused with guard_locked until flow_emergency_unlock, and runs in progress stop (resumable). Use it at once when an agent or a run is doing something harmful or looping; calls already in flight finish. Never guarded.",
      minimal: "Lock every guarded tool at once (emergency stop).",
      input: { reason: z.string().max(500).default("emergency stop").describe("why, shown in every refusal") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ reason }) => {
        guard.emergencyStop(reason);
        const abortedRuns = options.onStop?.() ?? [];
        const state = guard.state();
        const runs = abortedRuns.length
          ? ` Stopping runs ${abortedRuns.join(", ")} (calls in flight finish; resumable with flow resume).`
          : "";
        return jsonResult(
          { locked: state.locked, reason: state.lockReason, lockedAt: state.lockedAt, abortedRuns },
          `guard locked: ${reason}. Every guarded tool is refused until flow_emergency_unlock.${runs}`,
        );
      },
    }),
    defineLocalTool({
      name: "flow_emergency_unlock",
      toolset: CORE_TOOLSET,
      title: "Unlock the guard",
      rich: "Unlocks the guard after an emergency stop or an automatic rate-limit lock, so guarded tools work again; the rate window starts afresh. Use it only once the user has checked why the guard was locked. Never guarded, but destructive: the user confirms it.",
      minimal: "Unlock the guard after an emergency stop or rate-limit lock.",
      input: {},
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async () => {
        const was = guard.state();
        guard.unlock();
        return jsonResult(
          { locked: false, wasLocked: was.locked, previousReason: was.lockReason },
          was.locked ? `guard unlocked (it was locked: ${was.lockReason ?? "no reason"})` : "guard was not locked",
        );
      },
    }),
  ];
}
