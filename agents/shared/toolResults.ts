import type { ToolResult } from "@meshflow/core";

/** Every text block of a result, joined by newlines, unshortened. */
export function fullText(result: ToolResult): string {
  return result.content
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .filter(Boolean)
    .join("\n");
}

/** A result's `structuredContent`, or an empty object. */
export function structured(result: ToolResult): Record<string, unknown> {
  return result.structuredContent ?? {};
}

/** The last `lines` lines of a text (without trailing blank lines). */
export function tailLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, "").split("\n");
  return all.slice(-lines).join("\n");
}

/**
 * A tool call that failed or was refused while a specialist gathered facts. It carries the result so
 * the specialist can decide between `failed` (the tool ran and said no) and `blocked` (it could not run).
 */
export class ToolProblem extends Error {
  readonly tool: string;
  readonly result: ToolResult;

  constructor(tool: string, result: ToolResult) {
    const code = result.code ?? (structured(result).code as string | undefined);
    super(
      `${tool} failed${code ? ` (${code})` : ""}: ${tailLines(fullText(result), 5).replace(/\s+/g, " ").slice(0, 400)}`,
    );
    this.name = "ToolProblem";
    this.tool = tool;
    this.result = result;
  }
}
