import { z } from "@meshflow/runtime";
import { ScopeSchema } from "../shared/scope.js";

/** refactor-agent's settings: `config.yaml` beside the agent, a story's `agentConfig["refactor-agent"]` over it. */
export const RefactorConfigSchema = ScopeSchema.extend({
  maxLines: z.number().int().positive().describe("A file with more lines fails the step"),
  maxBytes: z.number().int().positive().describe("A file with more bytes fails the step"),
  duplicates: z.strictObject({
    enabled: z.boolean().describe("Look for duplicated blocks (reads every file in scope)"),
    minLines: z.number().int().min(2).describe("Shortest duplicated block reported, in significant lines"),
    maxBlocks: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe("More duplicated blocks than this fail the step; null: reported only"),
  }),
  report: z.number().int().min(0).describe("How many of the largest files the evidence lists"),
});

/** refactor-agent's settings, validated. */
export type RefactorConfig = z.infer<typeof RefactorConfigSchema>;
