import type { CacheUse } from "./PromptCache.js";
import type { ResolvedReply, ScriptedReply } from "./ScriptedReply.js";
import type { WireFormat } from "./WireFormat.js";

/** What the server knows of a request when it answers it. */
export interface ReplyInput {
  wire: WireFormat;
  /** Input tokens of the request at the server's rate (about four characters a token). */
  inputTokens: number;
  /** What the request read from and wrote to the server's prompt cache. */
  cache: CacheUse;
  /** The next tool call number (unique over the server's life), counted for every call, the default id's. */
  nextCallNumber(): number;
}

/**
 * A successful reply with every default filled in: tool call ids, and the usage the provider would
 * report — the request's tokens, the share read from and written to the cache, the reply's tokens —
 * unless the script gives its own.
 */
export function resolveReply(reply: Exclude<ScriptedReply, { error: unknown }>, input: ReplyInput): ResolvedReply {
  const text = reply.text ?? "";
  const toolCalls = (reply.toolCalls ?? []).map((call) => {
    const number = input.nextCallNumber();
    const id = call.id ?? `${input.wire.toolCallIdPrefix}${number}`;
    return {
      id,
      name: call.name,
      input: call.input,
      inputText: call.inputText ?? JSON.stringify(call.input),
      ...(call.namespace ? { namespace: call.namespace } : {}),
    };
  });
  const read = Math.min(input.cache.read, input.inputTokens);
  const write = Math.min(input.cache.write, input.inputTokens - read);
  const usage = reply.usage ?? {
    inputTokens: input.inputTokens,
    outputTokens: Math.ceil(JSON.stringify({ text, toolCalls }).length / 4),
    ...(read ? { cacheReadTokens: read } : {}),
    ...(write ? { cacheWriteTokens: write } : {}),
  };
  return { text, toolCalls, usage };
}
