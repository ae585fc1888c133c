import type { ToolDescriptor } from "@meshflow/core";

/**
 * Size in bytes of the tool definitions a model would be sent for `tools` (name, description and
 * input schema of each, as compact JSON): what a repertoire costs in a model's context.
 */
export function toolSchemaBytes(tools: readonly ToolDescriptor[]): number {
  const definitions = tools.map((t) => ({
    name: t.qualifiedName,
    description: t.description,
    inputSchema: t.inputSchema,
  }));
  return Buffer.byteLength(JSON.stringify(definitions), "utf8");
}
