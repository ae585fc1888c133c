import { z } from "zod";
import { stepPurpose } from "../model/stepPurpose.js";
import { MAX_STEP, MIN_STEP, PrdSchema } from "./PrdSchema.js";

/** Where the published JSON Schema of the PRD format lives, relative to the repository root. */
export const PRD_SCHEMA_PATH = "prd/prd.schema.json";

/** Every step number with its purpose, one per line: what an editor shows on `mavenSteps`. */
function stepList(): string {
  const lines: string[] = [];
  for (let step = MIN_STEP; step <= MAX_STEP; step++) lines.push(`${step} ${stepPurpose(step)}`);
  return lines.join("\n");
}

/**
 * The step numbers as one choice each, described by its purpose: editors offer them with that text.
 * The purposes live in `data/step-purposes.yaml` (what a model is told), not in the zod schema, so they
 * are put in here rather than written twice.
 */
function describeSteps(schema: Record<string, unknown>): void {
  const stories = (schema.properties as Record<string, { items?: { properties?: Record<string, unknown> } }>)
    .userStories;
  const steps = stories?.items?.properties?.mavenSteps as { description?: string; items?: Record<string, unknown> };
  if (!steps?.items) throw new Error("PRD schema: userStories[].mavenSteps not found");
  steps.description = `${steps.description ?? ""}\n${stepList()}`;
  const choices = [];
  for (let step = MIN_STEP; step <= MAX_STEP; step++) choices.push({ const: step, description: stepPurpose(step) });
  steps.items = { ...steps.items, anyOf: choices };
}

/**
 * The JSON Schema of the PRD format, generated from {@link PrdSchema} (input side: defaults are optional),
 * so editors can validate and autocomplete PRD files. Never edit the generated file by hand.
 */
export function prdJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PrdSchema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
  }) as Record<string, unknown>;
  describeSteps(schema);
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
