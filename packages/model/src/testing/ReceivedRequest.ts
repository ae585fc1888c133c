import type { ScriptedToolCall } from "./ScriptedToolCall.js";
import type { ScriptedUsage } from "./ScriptedUsage.js";

/** One message of a received request, normalised across the two wire formats. */
export interface ReceivedMessage {
  role: "user" | "assistant" | "tool";
  text: string;
  toolCalls?: ScriptedToolCall[];
  toolResults?: Array<{ id: string; text: string; isError?: boolean }>;
}

/** A request as the server received it, normalised across the two wire formats. */
export interface ReceivedRequest {
  api: "openai" | "anthropic" | "responses";
  stream: boolean;
  model: string;
  /** Request headers with lower-case names. */
  headers: Record<string, string>;
  /** The raw parsed JSON body. */
  body: unknown;
  /** System prompt text ("" if none): Anthropic `system` (string or text blocks), OpenAI system/developer messages joined. */
  system: string;
  messages: ReceivedMessage[];
  tools: Array<{ name: string; description?: string; inputSchema: unknown }>;
  /** Tool results in the last message(s) of the request (what the model is answering), in order. */
  toolResults: Array<{ id: string; name?: string; text: string; isError?: boolean }>;
  /**
   * The usage the server reported in its answer (set once it answered; absent for a refused request):
   * what the provider would bill, cache reads and writes included.
   */
  usage?: ScriptedUsage;
  /** Milliseconds the server spent on the exchange, from its arrival to the answer's end (set once answered). */
  serverMs?: number;
}

/**
 * The tool results the model is answering: those in the messages after the last assistant message, each named after
 * the assistant tool call with the same id.
 */
export function trailingToolResults(messages: ReceivedMessage[]): ReceivedRequest["toolResults"] {
  const names = new Map<string, string>();
  let lastAssistant = -1;
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    lastAssistant = index;
    for (const call of message.toolCalls ?? []) if (call.id !== undefined) names.set(call.id, call.name);
  });
  return messages.slice(lastAssistant + 1).flatMap((message) =>
    (message.toolResults ?? []).map((result) => {
      const name = names.get(result.id);
      return { ...result, ...(name === undefined ? {} : { name }) };
    }),
  );
}
