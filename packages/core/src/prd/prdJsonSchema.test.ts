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

describe("prdJsonSchema's steps", () => {
  it("describes every step number with its purpose, as a model working it is told", () => {
    const schema = prdJsonSchema() as {
      properties: {
        userStories: {
          items: { properties: { mavenSteps: { description: string; items: { anyOf: unknown[] } } } };
        };
      };
    };
    const steps = schema.properties.userStories.items.properties.mavenSteps;
    expect(steps.description).toContain("2 Dependencies: add, remove or update");
    expect(steps.description).toContain("8 Authentication: implement or review sign-in");
    expect(steps.items.anyOf).toHaveLength(11);
    expect(steps.items.anyOf[6]).toEqual({
      const: 7,
      description: "Data layer: implement the story's data, storage and backend logic.",
    });
  });
});
