import type { ModelProvider, ModelResponse, ModelWait } from "@meshflow/core";
import type { RecordedContext, RequestParts, TurnResults } from "./RequestParts.js";

/** A message of a model conversation, in meshflow's provider-neutral form. */
export type ChatMessage =
  | { role: "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: Array<{ id: string; name: string; input: Record<string, unknown> }> }
  | { role: "tool"; results: Array<{ id: string; name: string; text: string; isError: boolean }> };

/** A tool as a model is offered it: a provider-safe name, a description and a JSON Schema. */
export interface ChatTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One request to a model: everything a turn sends. */
export interface ChatRequest {
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ChatTool[];
  /** Upper bound of the reply's tokens, when the step's budget sets one. */
  maxOutputTokens?: number;
}

/** Which turn of which step a request is (cassettes key their recordings by it). */
export interface TurnRef {
  storyId: string;
  step: number;
  turn: number;
  requestDigest: string;
  /** The parts the step's requests are built from (a cassette keeps its first turn's, to name a change). */
  parts?: RequestParts;
  /** What the run remembered when the step's prompt was built (a cassette keeps it for its replay). */
  context?: RecordedContext;
  /** Whether each tool call of the turn before failed (absent on a step's first turn). */
  results?: TurnResults;
}

/**
 * Told each piece of a turn's text as the model streams it: the new piece, and the turn's text so far
 * (which starts again when a failed request is retried).
 */
export type TextListener = (delta: string, text: string) => void;

/** Told when a request was refused for now (429, 529) and how long the model waits before it asks again. */
export type WaitListener = (wait: Pick<ModelWait, "status" | "waitMs" | "retryAfter" | "attempt">) => void;

/** A chat model that answers one turn at a time (a provider through the AI SDK, or a cassette). */
export interface ChatModel {
  readonly provider: ModelProvider | string;
  readonly modelId: string;
  /** `<provider>:<model-id>`. */
  readonly name: string;
  /** True when answers come from a recording (no key, no network). */
  readonly replaying?: boolean;
  /**
   * A recording's run context for a step: the step's prompt is built from it instead of what the run
   * remembers now (a later run grew the memory), so the replay asks what the recording answered.
   */
  recordedContext?(storyId: string, step: number): RecordedContext | undefined;
  /**
   * Answers one turn. With `onText`, a model that can stream hands the text out as it arrives; the
   * response is the same either way (a recording answers without streaming). `onWait` is told each
   * wait before a retry.
   */
  generate(
    request: ChatRequest,
    turn: TurnRef,
    signal: AbortSignal,
    onText?: TextListener,
    onWait?: WaitListener,
  ): Promise<ModelResponse>;
}
