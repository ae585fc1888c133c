import { z } from "zod";
import { PrdSchema } from "./PrdSchema.js";

/** Where the published JSON Schema of the PRD format lives, relative to the repository root. */
export const PRD_SCHEMA_PATH = "prd/prd.schema.json";

/**
 * The JSON Schema of the PRD format, generated from {@link PrdSchema} (input side: defaults are optional),
 * so editors can validate and autocomplete PRD files. Never edit the generated file by hand.
 */
export function prdJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PrdSchema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
  });
  return {
    ...schema,
    $id: "https://meshflow.dev/schemas/prd.schema.json",
    title: "meshflow PRD",
  };
}

/** The JSON Schema as the text of `prd/prd.schema.json` (2-space indent, trailing newline). */
export function prdJsonSchemaText(): string {
  return `${JSON.stringify(prdJsonSchema(), null, 2)}\n`;
}
