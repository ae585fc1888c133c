import { z } from "@meshflow/runtime";

/** quality-agent's settings: `config.yaml` beside the agent, a story's `agentConfig["quality-agent"]` over it. */
export const QualityConfigSchema = z.strictObject({
  tool: z
    .string()
    .min(1)
    .nullable()
    .describe("The code_execute tool to use (qualified or bare name) when the repertoire has several"),
  tailLines: z.number().int().positive().describe("Lines of a failing command's output kept in the evidence"),
  stopOnFailure: z.boolean().describe("Run no further command after one fails"),
});

/** quality-agent's settings, validated. */
export type QualityConfig = z.infer<typeof QualityConfigSchema>;
