import { z } from "zod";

const perMillion = (what: string) => z.number().nonnegative().describe(`US dollars per million ${what}.`);

/**
 * What one model's tokens cost, and how many its context window holds. Every field is optional so an
 * override may change one (a context window alone); a model's cost is known when it has `input` and
 * `output`.
 */
const ModelPriceSchema = z
  .strictObject({
    input: perMillion("input tokens no cache held").optional(),
    output: perMillion("output tokens").optional(),
    cacheRead: perMillion("input tokens read from the provider's prompt cache").optional(),
    cacheWrite: perMillion("input tokens written to the provider's prompt cache").optional(),
    contextWindow: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Tokens the model's context window holds (the context budget trims tool results to stay within it)."),
  })
  .describe("A model's prices per million tokens in US dollars, and its context window.");

/** A model's prices, per million tokens in US dollars, and its context window. */
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** Prices by `<provider>:<model-id>`: the PRD's `prices`, the `models` of a price file. */
export const ModelPricesSchema = z
  .record(
    z.string().regex(/^[a-z][a-z0-9-]*:\S+$/, "a price is keyed by a model name, <provider>:<model-id>"),
    ModelPriceSchema,
  )
  .describe(
    'Prices per model, keyed `<provider>:<model-id>`, e.g. {"anthropic:claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}: over the shipped price table, field by field.',
  );

/** A price file (`flow run --prices <file>`, and the shipped table): a date and the models' prices. */
export const PriceFileSchema = z.strictObject({
  $schema: z.string().optional(),
  date: z.iso.date().describe("When the prices were taken from the providers' pages (YYYY-MM-DD)."),
  models: ModelPricesSchema,
});

/** A price file as read. */
export type PriceFile = z.infer<typeof PriceFileSchema>;
