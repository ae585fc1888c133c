import { hostname } from "node:os";
import { approvalLedger, decideApprovals } from "@meshflow/runtime/host";
import { readJsonBody, sendJson } from "./internal/http.js";
import { ApprovalRequestBodySchema } from "./requests.js";
import { parseBody, type Route } from "./routeTypes.js";

/**
 * The run page's approvals: `GET /api/runs/:runId/approvals` (the calls that wait and the decisions
 * made) and `POST` of one decision, bound to the arguments the page showed (`argsDigest`): a call
 * that waits with other arguments since is refused (`approval_stale`).
 */
export const APPROVAL_ROUTES: readonly Route[] = [
  {
    name: "approvals",
    method: "GET",
    path: "/api/runs/:runId/approvals",
    async handle(ctx, params, _req, res) {
      const { run } = await ctx.catalog.get(params.runId ?? "");
      const { pending, decisions } = approvalLedger(await ctx.catalog.store.approvals(run.runId).lines());
      sendJson(res, 200, { runId: run.runId, pending, decisions });
    },
  },
  {
    name: "decide-approval",
    method: "POST",
    path: "/api/runs/:runId/approvals",
    async handle(ctx, params, req, res) {
      const body = parseBody(ApprovalRequestBodySchema, await readJsonBody(req), "POST /api/runs/:runId/approvals");
      const { run } = await ctx.catalog.get(params.runId ?? "");
      const decisions = await decideApprovals(ctx.catalog.store.approvals(run.runId), run.runId, {
        keys: [body.key],
        approved: body.approved,
        ...(body.reason ? { reason: body.reason } : {}),
        by: `flow console (${hostname()}, pid ${process.pid})`,
        argsDigest: body.argsDigest,
      });
      sendJson(res, 200, { runId: run.runId, decisions });
    },
  },
];
