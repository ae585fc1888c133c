import { hostname } from "node:os";
import { isMeshflowError } from "@meshflow/core";
import { refusal } from "@meshflow/mcp";
import { CORE_TOOLSET, defineLocalTool, jsonResult, type ServedTool } from "@meshflow/mcp/server";
import { approvalLedger, decideApprovals, type FileRunStore } from "@meshflow/runtime/host";
import { z } from "zod";

/**
 * `flow_approve`: a decision about calls of a run that wait for a person's approval, as `flow approve`
 * records it (bound to the arguments each call waits with; `argsDigest` refuses a call whose arguments
 * changed since they were shown). Without keys nor `all` it lists what waits. A run this server started
 * waits in place and goes on at once; any other goes on with `flow resume`.
 */
export function approvalTools(store: FileRunStore): ServedTool[] {
  return [
    defineLocalTool({
      name: "flow_approve",
      toolset: CORE_TOOLSET,
      title: "Approve or deny waiting calls",
      rich: "Approves (or with deny, denies) tool calls of a meshflow run that wait for a person's approval (runs started with approve: destructive or all, or matching the approvals rules). Call it only with the user's decision. Without keys and without all it lists the calls that wait (tool, arguments, story, rule) and changes nothing. A decision holds for the arguments shown: pass argsDigest to have a call whose arguments changed since refused. Denied calls get approval_denied with the reason as the tool's error.",
      minimal: "Approve or deny a run's calls that wait for approval (or list them).",
      input: {
        runId: z.string().min(1).describe("the run whose calls wait"),
        keys: z.array(z.string()).default([]).describe("call keys to decide (as listed); empty with all, or to list"),
        all: z.boolean().default(false).describe("decide every waiting call"),
        deny: z.boolean().default(false).describe("deny instead of approve"),
        reason: z
          .string()
          .max(2000)
          .optional()
          .describe("why; a denial's reason is the tool's error the specialist gets"),
        argsDigest: z.string().optional().describe("the arguments' digest the user was shown (one key)"),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: async ({ runId, keys, all, deny, reason, argsDigest }) => {
        try {
          await store.read(runId);
          const book = store.approvals(runId);
          if (!keys.length && !all) {
            const { pending, decisions } = approvalLedger(await book.lines());
            const text = pending.length
              ? pending
                  .map((p) => `${p.key}  ${p.storyId} step ${p.step}: ${p.tool} ${JSON.stringify(p.args)} (${p.rule})`)
                  .join("\n")
              : `run ${runId} waits for no approval`;
            return jsonResult({ runId, pending, decisions }, text);
          }
          const decisions = await decideApprovals(book, runId, {
            keys,
            all,
            approved: !deny,
            ...(reason !== undefined ? { reason } : {}),
            by: `flow serve (flow_approve, ${hostname()}, pid ${process.pid})`,
            ...(argsDigest !== undefined ? { argsDigest } : {}),
          });
          return jsonResult(
            { runId, decisions },
            `${decisions.map((d) => `${deny ? "denied" : "approved"} ${d.key}`).join("\n")}\na run this server started goes on by itself; any other with: flow resume ${runId}`,
          );
        } catch (error) {
          if (isMeshflowError(error)) return refusal(error.code, error.message);
          throw error;
        }
      },
    }),
  ];
}
