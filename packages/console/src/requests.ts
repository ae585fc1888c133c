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

/** Body of `POST /api/runs`: a PRD of the project (relative path) and the main options of `flow run`. */
export const StartRunRequestSchema = z.strictObject({
  prd: z.string().min(1).max(1000),
  stories: z
    .array(z.string().regex(/^[A-Za-z0-9][\w.-]*$/, "a story id: letters, digits, _, . and -"))
    .max(10_000)
    .optional(),
  parallel: z.number().int().min(1).max(64).optional(),
  model: z
    .string()
    .regex(/^[a-z][a-z0-9-]*:\S+$/, "provider:model-id (anthropic:…, openai:…, openai-compatible:…)")
    .max(200)
    .optional(),
  harness: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "a harness name (claude-code, opencode, codex)")
    .max(50)
    .optional(),
});
/** Body of `POST /api/runs`. */
export type StartRunRequest = z.infer<typeof StartRunRequestSchema>;

/** Body of `POST /api/runs/:runId/approvals`: one decision about a call the page showed. */
export const ApprovalRequestBodySchema = z.strictObject({
  key: z.string().min(1),
  /** The digest of the arguments the page showed: a call that waits with others is refused. */
  argsDigest: z.string().min(1),
  approved: z.boolean(),
  reason: z.string().max(2000).optional(),
});
