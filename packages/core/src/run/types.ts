import type { ErrorCode } from "../errors/MeshflowError.js";

/** One request to run a tool, as specialists make it and executors carry it. */
export interface ToolCall {
  /** Idempotency key `<runId>/<storyId>/step<N>/<seq>`: a call with a journaled key is never run twice. */
  key: string;
  /** Qualified tool name `<server>__<tool>` (already resolved). */
  tool: string;
  args: Record<string, unknown>;
  runId?: string;
  storyId?: string;
  step?: number;
}

/** MCP content blocks are passed through as the server sent them. */
export type ContentBlock = { type: string } & Record<string, unknown>;

/** The result of a tool call, or of a refusal (then `isError` is true and `code` says why). */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** Set on refusals and transport failures: a stable code such as `guard_locked` or `tool_not_found`. */
  code?: ErrorCode;
}

/** Status of a finished step. `passed` only when the step's work was really done. */
export type StepStatus = "passed" | "failed" | "blocked";

/** What a specialist's `think()` returns for one story step. */
export interface StepOutcome {
  status: StepStatus;
  summary: string;
  evidence: unknown[];
}
