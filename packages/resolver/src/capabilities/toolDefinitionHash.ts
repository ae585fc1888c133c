import { createHash } from "node:crypto";
import type { ToolDescriptor } from "@meshflow/core";

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return value;
}

/**
 * A short hash of everything that defines a tool (name, title, description, input schema, annotations),
 * independent of key order: a changed tool gets a new hash and is classified again.
 */
export function toolDefinitionHash(tool: ToolDescriptor): string {
  const definition = canonical({
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  });
  return createHash("sha256").update(JSON.stringify(definition)).digest("hex").slice(0, 16);
}
