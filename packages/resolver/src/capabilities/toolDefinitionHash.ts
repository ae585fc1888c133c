import { canonicalJson, sha256Hex, type ToolDescriptor } from "@meshflow/core";

/**
 * A short hash of everything that defines a tool (name, title, description, input schema, annotations),
 * independent of key order: a changed tool gets a new hash and is classified again.
 */
export function toolDefinitionHash(tool: ToolDescriptor): string {
  const definition = canonicalJson({
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  });
  return sha256Hex(definition).slice(0, 16);
}
