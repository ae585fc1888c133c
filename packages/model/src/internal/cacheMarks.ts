import type { LanguageModelV3Prompt } from "@ai-sdk/provider";

/** Anthropic's cache breakpoint, as `@ai-sdk/anthropic` reads it from a message's provider options. */
const BREAKPOINT = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/**
 * Places cache breakpoints (at most 4 are allowed; 3 are used) on a prompt whose first message is the
 * system prompt: on the system prompt, which caches the tools (they come before it) with it; on the
 * last message, which writes the whole conversation to the cache for the next turn; and on the last
 * message of the previous turn's request, which this request's prefix reads from the cache — placed
 * there explicitly because the provider looks back only a few blocks from a breakpoint, and a turn
 * with many tool calls adds more. So every turn after the first reads all it shares with the one before.
 */
export function markCacheBreakpoints(prompt: LanguageModelV3Prompt): void {
  const last = prompt.length - 1;
  const lastAssistant = prompt.findLastIndex((m) => m.role === "assistant");
  const marked = new Set([0, last]);
  if (lastAssistant > 1) marked.add(lastAssistant - 1);
  for (const index of marked) {
    const message = prompt[index];
    if (message) message.providerOptions = { ...message.providerOptions, ...BREAKPOINT };
  }
}
