import { z } from "zod";

/**
 * A zod schema that the SDK's `McpServer` lists as exactly `schema` and that accepts any object.
 *
 * `McpServer.registerTool` only takes zod schemas, while proxied tools come with the JSON Schema
 * their server sent. zod merges a schema's metadata into the JSON Schema it generates, so a loose
 * object carrying the original schema as metadata is listed unchanged (keys the original lacks are
 * set to undefined, which JSON drops). Arguments are checked against the real JSON Schema by the
 * chain's validation middleware (ajv), which reports `invalid_arguments` with each path.
 */
export function jsonSchemaInput(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  // zod reads a metadata `id` as a $defs identifier; in a tool's input schema it is only a label.
  const { id: _id, ...meta } = schema;
  return z.looseObject({}).meta({
    $schema: undefined,
    additionalProperties: undefined,
    ...meta,
    type: "object",
  });
}
