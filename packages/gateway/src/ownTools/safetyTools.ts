import { CORE_TOOLSET, defineLocalTool, type Guard, jsonResult, type ServedTool } from "@meshflow/mcp";
import { z } from "zod";

/** Own tools the guard never refuses: the panic button, its release, and the health report. */
export const UNGUARDED_TOOLS = ["flow_diagnose", "flow_emergency_stop", "flow_emergency_unlock"] as const;

/**
 * `flow_emergency_stop` and `flow_emergency_unlock`. Stop is one call on purpose (a panic button
 * that asked for confirmation would be slower when it matters); unlock is destructive, so clients
 * ask their user, and clients that do not read annotations need a confirmation token.
 */
export function safetyTools(guard: Guard): ServedTool[] {
  return [
    defineLocalTool({
      name: "flow_emergency_stop",
      toolset: CORE_TOOLSET,
      title: "Emergency stop",
      rich: "Locks the guard: every guarded tool call (all proxied tools and meshflow's run tools) is refused with guard_locked until flow_emergency_unlock. Use it at once when an agent or a run is doing something harmful or looping; it does not cancel calls already in flight. Never guarded.",
      minimal: "Lock every guarded tool at once (emergency stop).",
      input: { reason: z.string().max(500).default("emergency stop").describe("why, shown in every refusal") },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ reason }) => {
        guard.emergencyStop(reason);
        const state = guard.state();
        return jsonResult(
          { locked: state.locked, reason: state.lockReason, lockedAt: state.lockedAt },
          `guard locked: ${reason}. Every guarded tool is refused until flow_emergency_unlock.`,
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
