import { z } from "zod";

const StepStatusSchema = z.enum(["passed", "failed", "blocked"]);

/** A cassette file: `{"cassette": 1, "turns": [...]}`, one entry per recorded model turn. */
export const CassetteSchema = z.strictObject({
  cassette: z.literal(1),
  turns: z.array(
    z.strictObject({
      storyId: z.string(),
      step: z.number().int(),
      turn: z.number().int().positive(),
      model: z.string(),
      requestDigest: z.string(),
      // Optional here so that a cassette from before digests gets the message below, not a schema error.
      responseDigest: z.string().optional(),
      response: z.strictObject({
        text: z.string(),
        toolCalls: z.array(
          z.strictObject({
            id: z.string(),
            name: z.string(),
            input: z.record(z.string(), z.unknown()),
            invalid: z.string().optional(),
          }),
        ),
        usage: z.strictObject({
          inputTokens: z.number(),
          outputTokens: z.number(),
          cacheReadTokens: z.number().optional(),
          cacheWriteTokens: z.number().optional(),
        }),
        finishReason: z.string(),
        warnings: z.array(z.string()).optional(),
      }),
      latencyMs: z.number(),
      // A step's first turn: the parts its requests were built from, and the run context behind them.
      parts: z
        .strictObject({
          system: z.string(),
          story: z.string(),
          memory: z.string(),
          tools: z.array(z.strictObject({ name: z.string(), digest: z.string() })),
        })
        .optional(),
      context: z
        .strictObject({
          finished: z.array(
            z.strictObject({
              prd: z.string(),
              storyId: z.string(),
              title: z.string(),
              status: StepStatusSchema,
              summary: z.string(),
            }),
          ),
          learnings: z.array(z.strictObject({ prd: z.string(), storyId: z.string(), text: z.string() })),
        })
        .optional(),
      // A later turn: whether each tool call of the turn before failed.
      results: z.array(z.strictObject({ name: z.string(), isError: z.boolean() })).optional(),
    }),
  ),
});
