import type { ToolResult } from "@meshflow/core";

/** The per-call context of the MCP middleware chain. */
export interface CallContext {
  repertoire?: ReadonlySet<string>;
  storyId?: string;
  step?: number;
  runId?: string;
  annotationAware?: boolean;
  confirmationToken?: string;
  signal?: AbortSignal;
}

/** One tool call through the MCP middleware chain. */
export type ToolHandler = (
  qualifiedName: string,
  args: Record<string, unknown>,
  ctx: CallContext,
) => Promise<ToolResult>;
