import { z } from "zod";

/** Body of `PUT /api/tools/:name/capabilities`: the full list, or null to remove the tool's override. */
export const OverrideRequestSchema = z.strictObject({
  capabilities: z.array(z.string().min(1)).nullable(),
});
/** Body of `PUT /api/tools/:name/capabilities`. */
export type OverrideRequest = z.infer<typeof OverrideRequestSchema>;

/** Body of `POST /api/guard/stop`. */
export const StopRequestSchema = z.strictObject({
  reason: z.string().max(500).default("emergency stop from flow console"),
});
/** Body of `POST /api/guard/stop`. */
export type StopRequest = z.infer<typeof StopRequestSchema>;

/** Body of `POST /api/runs/:runId/approvals`: one decision about a call the page showed. */
export const ApprovalRequestBodySchema = z.strictObject({
  key: z.string().min(1),
  /** The digest of the arguments the page showed: a call that waits with others is refused. */
  argsDigest: z.string().min(1),
  approved: z.boolean(),
  reason: z.string().max(2000).optional(),
});
