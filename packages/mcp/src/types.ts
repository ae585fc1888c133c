import type { ErrorCode, ToolDescriptor, ToolResult } from "@meshflow/core";

/** Per-call facts supplied by whoever calls (runtime, gateway, CLI); middleware reads them, never mutates them. */
export interface CallContext {
  /** Qualified names the caller may use; undefined means the repertoire policy is not applied. */
  repertoire?: ReadonlySet<string>;
  storyId?: string;
  step?: number;
  runId?: string;
  /** True when the caller reads tool annotations itself: destructive tools then need no confirmation token. */
  annotationAware?: boolean;
  /** The token a previous `confirmation_required` refusal handed out. */
  confirmationToken?: string;
  /** Aborts the call; the result is then an `aborted` refusal. */
  signal?: AbortSignal;
  /** Overrides the pool's call timeout for this call. */
  timeoutMs?: number;
  /**
   * Asked right before the call leaves for its server (after any wait for a connection): a result
   * refuses it there and then. The guard sets it, so a stop that came after the call was accepted
   * still holds.
   */
  beforeSend?: () => ToolResult | undefined;
}

/** One tool call by qualified name. Never throws for tool-level problems: refusals are results with a `code`. */
export type ToolHandler = (
  qualifiedName: string,
  args: Record<string, unknown>,
  ctx: CallContext,
) => Promise<ToolResult>;

/** Wraps a handler: the unit the call chain is built from. */
export type Middleware = (next: ToolHandler) => ToolHandler;

/**
 * Finds a tool's descriptor by qualified name. Throws a `MeshflowError` (`tool_not_found`,
 * `server_unreachable`, …) when it cannot; returns synchronously when the descriptor is cached.
 */
export type DescribeTool = (qualifiedName: string) => ToolDescriptor | Promise<ToolDescriptor>;

/** The stage of the chain that produced a refusal. */
export type ChainStage = "guard" | "policy" | "confirmation" | "validation" | "lookup" | "call";

/** Common fields of every middleware event. */
interface EventBase {
  /** ISO-8601 time of the event. */
  time: string;
}

/** Identifiers of the call an event is about, copied from its {@link CallContext}. */
export interface CallIds {
  runId?: string;
  storyId?: string;
  step?: number;
}

/** What the chain reports besides results: refusals, guard changes, issued tokens, skipped validation. */
export type MiddlewareEvent =
  | (EventBase & CallIds & { type: "tool.refused"; tool: string; stage: ChainStage; code: ErrorCode; message: string })
  | (EventBase & { type: "guard.locked"; reason: string; automatic: boolean })
  | (EventBase & { type: "guard.unlocked" })
  | (EventBase & CallIds & { type: "confirmation.issued"; tool: string; expiresAt: string })
  | (EventBase & CallIds & { type: "validation.skipped"; tool: string; message: string });

/** Receives middleware events. */
export type EventSink = (event: MiddlewareEvent) => void;

/** A clock in epoch milliseconds; injectable so token expiry and rate windows are testable without sleeping. */
export type Clock = () => number;
