import {
  type ContentBlock,
  qualifyToolName,
  type ToolAnnotations,
  type ToolDescriptor,
  type ToolResult,
} from "@meshflow/core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** A discovered MCP tool as meshflow knows it. */
export function toDescriptor(server: string, tool: Tool): ToolDescriptor {
  const annotations: ToolAnnotations = {};
  const given = tool.annotations;
  if (given) {
    if (typeof given.title === "string") annotations.title = given.title;
    for (const hint of HINTS) if (typeof given[hint] === "boolean") annotations[hint] = given[hint];
  }
  const descriptor: ToolDescriptor = {
    qualifiedName: qualifyToolName(server, tool.name),
    server,
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations,
  };
  const title = tool.title ?? annotations.title;
  if (title !== undefined) descriptor.title = title;
  // Facts a server states for its clients (`"meshflow/allow"`: what run_command may start), kept as sent.
  if (tool._meta && typeof tool._meta === "object" && !Array.isArray(tool._meta)) descriptor.meta = tool._meta;
  return descriptor;
}

/** The fields of an SDK `tools/call` result meshflow keeps. */
export interface SdkCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

/** An SDK `tools/call` result as a {@link ToolResult}. Content blocks pass through as the server sent them. */
export function toToolResult(result: SdkCallResult): ToolResult {
  if (result.content === undefined && result.toolResult !== undefined) {
    // Servers on the 2024-10-07 protocol answer with `toolResult` instead of content.
    return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
  }
  const out: ToolResult = { content: Array.isArray(result.content) ? (result.content as ContentBlock[]) : [] };
  if (result.structuredContent && typeof result.structuredContent === "object")
    out.structuredContent = result.structuredContent as Record<string, unknown>;
  if (result.isError === true) out.isError = true;
  return out;
}
