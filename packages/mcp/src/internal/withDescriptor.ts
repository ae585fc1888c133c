import { type ToolDescriptor, type ToolResult, toMeshflowError } from "@meshflow/core";
import { refuse } from "../refusal.js";
import type { CallContext, DescribeTool, EventSink } from "../types.js";

/**
 * Runs `then` with the tool's descriptor, or answers with the refusal that says why there is none
 * (`tool_not_found` with candidates, or the server's connection error). A cached descriptor takes
 * the synchronous path: no extra promise on the hot path.
 */
export function withDescriptor(
  describe: DescribeTool,
  tool: string,
  ctx: CallContext,
  emit: EventSink | undefined,
  then: (descriptor: ToolDescriptor) => Promise<ToolResult>,
): Promise<ToolResult> {
  const fail = (error: unknown): ToolResult => {
    const failure = toMeshflowError(error, "tool_not_found");
    const candidates = failure.details.candidates;
    const details = Array.isArray(candidates) ? { candidates: candidates.slice(0, 5) } : undefined;
    return refuse(emit, "lookup", tool, ctx, failure.code, failure.message, details);
  };
  let found: ToolDescriptor | Promise<ToolDescriptor>;
  try {
    found = describe(tool);
  } catch (error) {
    return Promise.resolve(fail(error));
  }
  if (found instanceof Promise) return found.then(then, fail);
  return then(found);
}
