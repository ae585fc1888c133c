import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PRD_SCHEMA_PATH, prdJsonSchema, prdJsonSchemaText } from "./prdJsonSchema.js";

const onDisk = fileURLToPath(new URL(`../../../../${PRD_SCHEMA_PATH}`, import.meta.url));

describe("prdJsonSchema", () => {
  it("matches prd/prd.schema.json (run `npm run schema` after changing the zod schema)", () => {
    expect(readFileSync(onDisk, "utf8")).toBe(prdJsonSchemaText());
  });

  it("describes stories with their required fields and keeps unknown fields allowed", () => {
    const schema = prdJsonSchema() as {
      required: string[];
      properties: { userStories: { items: { required: string[]; additionalProperties?: unknown } } };
    };
    expect(schema.required).toEqual(["project", "userStories"]);
    expect(schema.properties.userStories.items.required).toEqual(["id", "title", "mavenSteps", "priority"]);
    expect(schema.properties.userStories.items.additionalProperties).not.toBe(false);
  });
});
