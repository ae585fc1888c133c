import type { ToolDescriptor } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { SchemaValidator } from "./SchemaValidator.js";

const tool = (inputSchema: Record<string, unknown>): ToolDescriptor => ({
  qualifiedName: "s__t",
  server: "s",
  name: "t",
  description: "",
  inputSchema,
  annotations: {},
});

describe("SchemaValidator", () => {
  it("names the path of every violated constraint", () => {
    const validator = new SchemaValidator();
    const schema = tool({
      type: "object",
      properties: {
        path: { type: "string" },
        edits: {
          type: "array",
          items: { type: "object", properties: { oldText: { type: "string" } }, required: ["oldText"] },
        },
        mode: { enum: ["a", "b"] },
      },
      required: ["path"],
      additionalProperties: false,
    });
    expect(validator.check(schema, { path: "x", edits: [{ oldText: "a" }] })).toEqual({ ok: true });
    expect(validator.check(schema, { edits: [{ oldText: 1 }, {}], mode: "c", extra: true })).toEqual({
      ok: false,
      problems: [
        "$.path: is required",
        "$.extra: is not allowed (unknown property)",
        "$.edits[0].oldText: must be string",
        "$.edits[1].oldText: is required",
        '$.mode: must be one of "a", "b"',
      ],
    });
  });

  it("compiles each descriptor's schema once", () => {
    const validator = new SchemaValidator();
    const descriptor = tool({ type: "object", properties: { n: { type: "number" } } });
    validator.check(descriptor, { n: 1 });
    // The same schema object mutated afterwards is not recompiled: the cached validator still applies.
    descriptor.inputSchema.properties = { n: { type: "string" } };
    expect(validator.check(descriptor, { n: 1 })).toEqual({ ok: true });
    expect(new SchemaValidator().check(descriptor, { n: 1 })).toMatchObject({ ok: false });
  });

  // Regression: ajv cached every compiled schema by object and `$id` for the life of the process, so a
  // long-lived server kept each rediscovered tool's validator, and a tool whose schema changed under the
  // same `$id` could no longer be compiled ("already exists"), leaving its arguments unchecked.
  it("frees compiled schemas with their descriptors: a changed schema with the same $id is checked", () => {
    const validator = new SchemaValidator();
    const first = tool({ $id: "https://example.com/t.json", type: "object", properties: { n: { type: "number" } } });
    expect(validator.check(first, { n: "x" })).toMatchObject({ ok: false });
    const rediscovered = tool({
      $id: "https://example.com/t.json",
      type: "object",
      properties: { n: { type: "string" } },
    });
    expect(validator.check(rediscovered, { n: "x" })).toEqual({ ok: true });
    expect(validator.check(rediscovered, { n: 1 })).toMatchObject({ ok: false });
  });

  it("handles 2020-12 schemas and string formats", () => {
    const validator = new SchemaValidator();
    const schema = tool({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        url: { type: "string", format: "uri" },
        pair: { type: "array", prefixItems: [{ type: "number" }] },
      },
    });
    expect(validator.check(schema, { url: "https://example.com", pair: [1] })).toEqual({ ok: true });
    expect(validator.check(schema, { url: "not a uri", pair: ["x"] })).toEqual({
      ok: false,
      problems: ['$.url: must match format "uri"', "$.pair[0]: must be number"],
    });
  });

  it("handles 2019-09 schemas (dependentRequired)", () => {
    const schema = tool({
      $schema: "https://json-schema.org/draft/2019-09/schema",
      type: "object",
      dependentRequired: { card: ["cvc"] },
    });
    const validator = new SchemaValidator();
    expect(validator.check(schema, { card: "4111", cvc: "123" })).toEqual({ ok: true });
    expect(validator.check(schema, { card: "4111" })).toMatchObject({ ok: false });
  });

  it("skips a schema that cannot be compiled and says why", () => {
    const result = new SchemaValidator().check(tool({ type: "object", properties: { a: { $ref: "#/nowhere" } } }), {});
    expect(result).toMatchObject({ ok: "skipped", reason: expect.stringContaining("nowhere") });
  });
});
