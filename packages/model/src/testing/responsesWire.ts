import { openaiWire } from "./openaiWire.js";
import type { ReceivedMessage } from "./ReceivedRequest.js";
import type { ResolvedReply } from "./ScriptedReply.js";
import {
  contentText,
  type ParsedRequest,
  parseArguments,
  type ReplyContext,
  records,
  splitPieces,
  sseFrame,
  stringOr,
  type WireFormat,
} from "./WireFormat.js";

/** Text of a Responses API content list: `input_text` and `output_text` parts (or a plain string). */
function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  return records(content)
    .filter((part) => typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/**
 * OpenAI Responses (`POST /v1/responses`), as `@ai-sdk/openai`'s `responses()` model and Codex use it:
 * `instructions` and an `input` list of messages, `function_call` and `function_call_output` items.
 */
export const responsesWire: WireFormat = {
  api: "responses",
  toolCallIdPrefix: "call_",

  parseRequest(body) {
    const system: string[] = typeof body.instructions === "string" ? [body.instructions] : [];
    const messages: ReceivedMessage[] = [];
    const input =
      typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : body.input;
    for (const item of records(input)) {
      const type = item.type ?? "message";
      if (type === "message") {
        const text = partsText(item.content) || contentText(item.content);
        if (item.role === "system" || item.role === "developer") system.push(text);
        else if (item.role === "assistant") messages.push({ role: "assistant", text });
        else messages.push({ role: "user", text });
      } else if (type === "function_call") {
        const call = {
          id: stringOr(item.call_id, ""),
          name: stringOr(item.name, ""),
          input: parseArguments(stringOr(item.arguments, "")),
          ...(typeof item.namespace === "string" ? { namespace: item.namespace } : {}),
        };
        const last = messages.at(-1);
        // Consecutive calls of one turn belong to one assistant message, as in the other wire formats.
        if (last?.role === "assistant" && last.toolCalls) last.toolCalls.push(call);
        else if (last?.role === "assistant" && last.text !== "") last.toolCalls = [call];
        else messages.push({ role: "assistant", text: "", toolCalls: [call] });
      } else if (type === "function_call_output") {
        const text = typeof item.output === "string" ? item.output : partsText(item.output);
        messages.push({ role: "tool", text, toolResults: [{ id: stringOr(item.call_id, ""), text }] });
      }
    }
    const tools = records(body.tools).flatMap((tool) => offered(tool));
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
    return responseObject(reply, context, outputItems(reply, context));
  },

  streamFrames(reply, context) {
    const frames: string[] = [];
    const event = (type: string, data: Record<string, unknown>) => frames.push(sseFrame({ type, ...data }, type));
    const items = outputItems(reply, context);
    event("response.created", { response: { ...responseObject(reply, context, []), status: "in_progress" } });
    items.forEach((item, index) => {
      if (item.type === "message") {
        event("response.output_item.added", {
          output_index: index,
          item: { ...item, content: [], status: "in_progress" },
        });
        for (const delta of splitPieces(reply.text))
          event("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta });
      } else {
        event("response.output_item.added", {
          output_index: index,
          item: { ...item, arguments: "", status: "in_progress" },
        });
        for (const delta of splitPieces(item.arguments))
          event("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta });
      }
      event("response.output_item.done", { output_index: index, item });
    });
    event("response.completed", { response: responseObject(reply, context, items) });
    return frames;
  },

  errorBody: openaiWire.errorBody,
};

/**
 * The tools one entry of `tools` offers: a function; a namespace's functions, named `<namespace>__<name>`;
 * any other kind (a hosted tool such as `web_search`) by its type, so nothing offered goes unseen.
 */
function offered(tool: Record<string, unknown>, prefix = ""): ParsedRequest["tools"] {
  if (tool.type === "namespace")
    return records(tool.tools).flatMap((inner) => offered(inner, `${prefix}${stringOr(tool.name, "")}__`));
  if (tool.type !== "function") return [{ name: `${prefix}${stringOr(tool.type, "unknown")}`, inputSchema: tool }];
  return [
    {
      name: `${prefix}${stringOr(tool.name, "")}`,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      inputSchema: tool.parameters,
    },
  ];
}

type OutputItem =
  | { type: "message"; id: string; role: "assistant"; status: "completed"; content: unknown[] }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      namespace?: string;
      arguments: string;
      status: "completed";
    };

function outputItems(reply: ResolvedReply, context: ReplyContext): OutputItem[] {
  const items: OutputItem[] = [];
  if (reply.text !== "" || reply.toolCalls.length === 0)
    items.push({
      type: "message",
      id: `msg_${context.sequence}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  for (const [index, call] of reply.toolCalls.entries())
    items.push({
      type: "function_call",
      id: `fc_${context.sequence}_${index}`,
      call_id: call.id,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: call.inputText,
      status: "completed",
    });
  return items;
}

function responseObject(reply: ResolvedReply, context: ReplyContext, output: OutputItem[]) {
  const { inputTokens, outputTokens } = reply.usage;
  return {
    id: `resp_${context.sequence}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: context.model,
    output,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
}
