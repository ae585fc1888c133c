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
