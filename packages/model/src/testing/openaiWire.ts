import type { ReceivedMessage } from "./ReceivedRequest.js";
import type { ResolvedReply } from "./ScriptedReply.js";
import {
  contentText,
  isRecord,
  type ParsedRequest,
  parseArguments,
  type ReplyContext,
  records,
  splitPieces,
  sseFrame,
  stringOr,
  type WireFormat,
} from "./WireFormat.js";

/** OpenAI Chat Completions (`POST /v1/chat/completions`), as `@ai-sdk/openai` and `@ai-sdk/openai-compatible` use it. */
export const openaiWire: WireFormat = {
  api: "openai",
  toolCallIdPrefix: "call_",

  parseRequest(body) {
    const system: string[] = [];
    const messages: ReceivedMessage[] = [];
    for (const message of records(body.messages)) {
      const text = contentText(message.content);
      switch (message.role) {
        case "system":
        case "developer":
          system.push(text);
          break;
        case "user":
          messages.push({ role: "user", text });
          break;
        case "assistant": {
          const toolCalls = records(message.tool_calls).map((call) => {
            const fn = isRecord(call.function) ? call.function : {};
            return {
              id: stringOr(call.id, ""),
              name: stringOr(fn.name, ""),
              input: parseArguments(stringOr(fn.arguments, "")),
            };
          });
          messages.push({ role: "assistant", text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
          break;
        }
        case "tool":
          messages.push({ role: "tool", text, toolResults: [{ id: stringOr(message.tool_call_id, ""), text }] });
          break;
      }
    }
    const tools: ParsedRequest["tools"] = records(body.tools).flatMap((tool) => {
      if (tool.type !== "function" || !isRecord(tool.function)) return [];
      const { name, description, parameters } = tool.function;
      return [
        {
          name: stringOr(name, ""),
          ...(typeof description === "string" ? { description } : {}),
          inputSchema: parameters,
        },
      ];
    });
    return {
      model: stringOr(body.model, ""),
      stream: body.stream === true,
      system: system.join("\n"),
      messages,
      tools,
    };
  },

  isAuthorized(headers, apiKey) {
    return headers.authorization === `Bearer ${apiKey}`;
  },

  response(reply, context) {
    return {
      ...envelope(context, "chat.completion"),
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text === "" && reply.toolCalls.length > 0 ? null : reply.text,
            ...(reply.toolCalls.length > 0
              ? {
                  tool_calls: reply.toolCalls.map((call) => ({
                    id: call.id,
                    type: "function",
                    function: { name: call.name, arguments: call.inputText },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReason(reply),
        },
      ],
      usage: usage(reply),
    };
  },

  streamFrames(reply, context) {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      sseFrame({
        ...envelope(context, "chat.completion.chunk"),
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    // The role chunk carries no `content`: an empty string would open an empty text part in @ai-sdk/openai.
    const frames = [chunk({ role: "assistant" })];
    for (const piece of splitPieces(reply.text)) frames.push(chunk({ content: piece }));
    reply.toolCalls.forEach((call, index) => {
      frames.push(
        chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
      );
      for (const piece of splitPieces(call.inputText)) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    frames.push(chunk({}, finishReason(reply)));
    const streamOptions = isRecord(context.body.stream_options) ? context.body.stream_options : {};
    if (streamOptions.include_usage === true) {
      frames.push(sseFrame({ ...envelope(context, "chat.completion.chunk"), choices: [], usage: usage(reply) }));
    }
    frames.push(sseFrame("[DONE]"));
    return frames;
  },

  errorBody(status, message) {
    return {
      error: {
        message,
        type: status >= 500 ? "server_error" : "invalid_request_error",
        param: null,
        code:
          status === 401
            ? "invalid_api_key"
            : /maximum context length/.test(message)
              ? "context_length_exceeded"
              : null,
      },
    };
  },

  cacheStyle: "automatic",

  cacheBlocks(body) {
    // OpenAI's prefix: the tools, then the messages.
    return [...records(body.tools), ...records(body.messages)].map((item) => ({
      text: JSON.stringify(item),
      mark: false,
    }));
  },

  tooLong(tokens, window) {
    return `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
  },
};

function envelope(context: ReplyContext, object: string) {
  return {
    id: `chatcmpl-${context.sequence}`,
    object,
    created: Math.floor(Date.now() / 1000),
    model: context.model,
  };
}

function finishReason(reply: ResolvedReply): "tool_calls" | "stop" {
  return reply.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function usage(reply: ResolvedReply) {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: reply.usage.cacheReadTokens ?? 0 },
  };
}
