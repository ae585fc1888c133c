import type { ToolCall, ToolResult } from "@meshflow/core";
import type { CallContext } from "./types.js";

/**
 * Runs tool calls somewhere: in this process ({@link InlineExecutor}) or on queue workers. An executor
 * never throws for a tool-level problem: refusals and failures come back as a `ToolResult` with
 * `isError` and a stable `code`. Journaling (what already ran for an idempotency key) is the caller's
 * concern, through a {@link CallJournal}.
 */
export interface Executor {
  /** Runs one call (already resolved to its qualified name) and resolves to its result. */
  submit(call: ToolCall, ctx: CallContext): Promise<ToolResult>;
  /** Releases what the executor holds (connections, workers). */
  close(): Promise<void>;
}
