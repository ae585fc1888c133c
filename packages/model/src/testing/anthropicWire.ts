import type { ReceivedMessage } from "./ReceivedRequest.js";
import type { ResolvedReply } from "./ScriptedReply.js";
import {
  contentText,
  isRecord,
  type ParsedRequest,
  type ReplyContext,
  records,
  splitPieces,
  sseFrame,
  stringOr,
  unmarked,
  type WireFormat,
} from "./WireFormat.js";

/** Anthropic Messages (`POST /v1/messages`), as `@ai-sdk/anthropic` uses it. */
export const anthropicWire: WireFormat = {
  api: "anthropic",
  toolCallIdPrefix: "toolu_",

  parseRequest(body) {
    const messages: ReceivedMessage[] = records(body.messages).map((message) =>
      message.role === "assistant" ? assistantMessage(message.content) : userMessage(message.content),
    );
    const tools: ParsedRequest["tools"] = records(body.tools).map((tool) => ({
      name: stringOr(tool.name, ""),
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      inputSchema: tool.input_schema,
    }));
    return {
      model: stringOr(body.model, ""),
      stream: body.stream === true,
      system: systemText(body.system),
      messages,
      tools,
    };
  },

  isAuthorized(headers, apiKey) {
    return headers["x-api-key"] === apiKey;
  },

  response(reply, context) {
    const content: unknown[] = [];
    if (reply.text !== "" || reply.toolCalls.length === 0) content.push({ type: "text", text: reply.text });
    for (const call of reply.toolCalls)
      content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
    return {
      id: messageId(context),
      type: "message",
      role: "assistant",
      model: context.model,
      content,
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: { ...inputUsage(reply), output_tokens: reply.usage.outputTokens },
    };
  },

  streamFrames(reply, context) {
    const frames: string[] = [];
    const event = (data: { type: string } & Record<string, unknown>) => frames.push(sseFrame(data, data.type));
    event({
      type: "message_start",
      message: {
        id: messageId(context),
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage(reply), output_tokens: 1 },
      },
    });
    let index = 0;
    if (reply.text !== "") {
      event({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of splitPieces(reply.text)) {
        event({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
      }
      event({ type: "content_block_stop", index });
      index += 1;
    }
    for (const call of reply.toolCalls) {
      event({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      });
      for (const partial_json of splitPieces(call.inputText)) {
        event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } });
      }
      event({ type: "content_block_stop", index });
      index += 1;
    }
    event({
      type: "message_delta",
      delta: { stop_reason: stopReason(reply), stop_sequence: null },
      usage: { output_tokens: reply.usage.outputTokens },
    });
    event({ type: "message_stop" });
    return frames;
  },

  errorBody(status, message) {
    return {
      type: "error",
      error: { type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message },
    };
  },

  cacheStyle: "breakpoints",

  cacheBlocks(body) {
    const blocks = records(body.tools).map((tool) => ({ text: unmarked(tool), mark: isRecord(tool.cache_control) }));
    const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : records(body.system);
    for (const block of system) blocks.push({ text: unmarked(block), mark: isRecord(block.cache_control) });
    for (const message of records(body.messages)) {
      const content =
        typeof message.content === "string" ? [{ type: "text", text: message.content }] : records(message.content);
      for (const block of content)
        blocks.push({ text: `${String(message.role)}:${unmarked(block)}`, mark: isRecord(block.cache_control) });
    }
    return blocks;
  },

  tooLong(tokens, window) {
    return `prompt is too long: ${tokens} tokens > ${window} maximum`;
  },
};

/** Anthropic's input usage: tokens no cache held, and those read from and written to the cache. */
function inputUsage(reply: ResolvedReply) {
  const read = reply.usage.cacheReadTokens ?? 0;
  const write = reply.usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, reply.usage.inputTokens - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  return records(system)
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

function assistantMessage(content: unknown): ReceivedMessage {
  const toolCalls = typeof content === "string" ? [] : records(content).filter((block) => block.type === "tool_use");
  return {
    role: "assistant",
    text: contentText(content),
    ...(toolCalls.length > 0
      ? {
          toolCalls: toolCalls.map((block) => ({
            id: stringOr(block.id, ""),
            name: stringOr(block.name, ""),
            input: isRecord(block.input) ? block.input : {},
          })),
        }
      : {}),
  };
}

/** A user message; one made only of tool results is normalised to the `tool` role, as OpenAI sends them. */
function userMessage(content: unknown): ReceivedMessage {
  const blocks = typeof content === "string" ? [] : records(content);
  const results = blocks.filter((block) => block.type === "tool_result");
  if (results.length === 0) return { role: "user", text: contentText(content) };
  const toolResults = results.map((block) => ({
    id: stringOr(block.tool_use_id, ""),
    text: contentText(block.content),
    ...(block.is_error === true ? { isError: true } : {}),
  }));
  const role = results.length === blocks.length ? "tool" : "user";
  const text = role === "tool" ? toolResults.map((result) => result.text).join("\n") : contentText(content);
  return { role, text, toolResults };
}

function messageId(context: ReplyContext): string {
  return `msg_${context.sequence}`;
}

function stopReason(reply: ResolvedReply): "tool_use" | "end_turn" {
  return reply.toolCalls.length > 0 ? "tool_use" : "end_turn";
}
