import type { ToolResult } from "@meshflow/core";

/** A tool result as the model reads it: its text blocks (other blocks named), bounded to `max` characters. */
export function resultForModel(result: ToolResult, max: number): string {
  const parts = result.content.map((block) => {
    if (block.type === "text" && typeof block.text === "string") return block.text;
    if (block.type === "resource") return JSON.stringify(block);
    return `[${block.type} content]`;
  });
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  let text = parts.join("\n");
  if (result.isError) text = `error${result.code ? ` (${result.code})` : ""}: ${text || "the call failed"}`;
  if (text.length > max) text = `${text.slice(0, max)}\n…(${text.length - max} more characters not shown)`;
  return text || "(empty result)";
}
