import type { ErrorCode, ToolResult } from "@meshflow/core";
import type { CallContext, CallIds, ChainStage, EventSink } from "./types.js";

/**
 * A result that says why a call was not made (or failed below the tool): `isError`, a stable
 * `code`, the text `<code>: <message>` for models and people, and the same facts as structured content.
 */
export function refusal(code: ErrorCode, message: string, details?: Record<string, unknown>): ToolResult {
  return {
    content: [{ type: "text", text: `${code}: ${message}` }],
    structuredContent: { error: { code, message, ...details } },
    isError: true,
    code,
  };
}

/** The identifiers of a call, for events. */
export function callIds(ctx: CallContext): CallIds {
  const ids: CallIds = {};
  if (ctx.runId !== undefined) ids.runId = ctx.runId;
  if (ctx.storyId !== undefined) ids.storyId = ctx.storyId;
  if (ctx.step !== undefined) ids.step = ctx.step;
  return ids;
}

/** Builds a refusal and reports it as a `tool.refused` event: no refusal goes unreported. */
export function refuse(
  emit: EventSink | undefined,
  stage: ChainStage,
  tool: string,
  ctx: CallContext,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): ToolResult {
  emit?.({ type: "tool.refused", time: new Date().toISOString(), ...callIds(ctx), tool, stage, code, message });
  return refusal(code, message, details);
}
