import { z } from "zod";

/** The BullMQ job name of a tool call. */
export const CALL_JOB = "call";

/** What a tool-call job carries: the call and the parts of its `CallContext` that cross processes. */
export const CallJobDataSchema = z.object({
  /** Idempotency key `<runId>/<storyId>/step<N>/<seq>`. */
  key: z.string().min(1),
  /** Qualified tool name `<server>__<tool>`. */
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  /** `sha256:<hex>` of the canonical JSON of `args`. */
  argsDigest: z.string(),
  /** The journal (a run id) the call is recorded in. */
  journal: z.string().min(1),
  runId: z.string().optional(),
  storyId: z.string().optional(),
  step: z.number().int().optional(),
  /** The step's repertoire; absent means the repertoire policy is not applied. */
  repertoire: z.array(z.string()).optional(),
  annotationAware: z.boolean().optional(),
  confirmationToken: z.string().optional(),
  /** Time limit of the MCP call on the worker. */
  timeoutMs: z.number().int().positive().optional(),
  /** W3C `traceparent` of the call's span in the process that queued it (when traces are exported). */
  traceparent: z.string().optional(),
});

/** What a tool-call job carries. */
export type CallJobData = z.infer<typeof CallJobDataSchema>;

/**
 * The BullMQ job id of an idempotency key: the key itself, with `%` and `:` escaped (BullMQ forbids
 * `:` in custom ids). One key, one job: a second submit of the same key joins the first job.
 */
export function callJobId(key: string): string {
  return key.replaceAll("%", "%25").replaceAll(":", "%3A");
}
