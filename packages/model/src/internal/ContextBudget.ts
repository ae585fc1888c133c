import type { ChatMessage, ChatTool } from "../ChatModel.js";

/** Tokens per character the estimate starts with (about three characters a token: JSON is dense). */
const START_RATIO = 1 / 3;
/** Trimming goes on until the request is under this part of the limit, so it is not needed again next turn. */
const TRIM_TO = 0.75;

type ToolResultEntry = Extract<ChatMessage, { role: "tool" }>["results"][number];

/** What {@link ContextBudget.fit} did to a conversation. */
export interface Fit {
  /** Tool results it replaced by a marker now. */
  trimmed: number;
  /** The request's estimated tokens afterwards. */
  tokens: number;
  /** True when even so the request would not fit the context window. */
  overflows: boolean;
}

/** The marker that stands in for a trimmed tool result. */
function marker(result: ToolResultEntry): string {
  return `[trimmed: this ${result.name} result (${result.text.length} characters) was removed to keep the conversation within the model's context window; the run's journal keeps it, and calling the tool again reads it anew]`;
}

/**
 * A step's context budget: before each request, when the request would pass `share` of the model's
 * context window, the oldest tool results (never those of the latest turn) are replaced by a short
 * marker until it is well under. Deterministic — a function of the conversation and of the token
 * counts the provider reported for earlier turns, which the journal and cassettes keep — so a resumed
 * or replayed step trims exactly as the recorded one did. Once trimmed, a result stays trimmed: the
 * prefix the provider cached changes only when something is trimmed.
 */
export class ContextBudget {
  readonly #window: number;
  readonly #limit: number;
  readonly #fixedChars: number;
  /** Characters of each message, by identity (a trimmed result gets a new message object). */
  readonly #chars = new WeakMap<ChatMessage, number>();
  readonly #trimmed = new WeakSet<ToolResultEntry>();
  #ratio = START_RATIO;

  /** `window`: tokens the model's context holds; `share`: the part of it a request may fill (0–1). */
  constructor(window: number, share: number, system: string, tools: readonly ChatTool[]) {
    this.#window = window;
    this.#limit = window * share;
    this.#fixedChars = system.length + JSON.stringify(tools).length;
  }

  #charsOf(message: ChatMessage): number {
    let chars = this.#chars.get(message);
    if (chars === undefined) {
      chars = JSON.stringify(message).length;
      this.#chars.set(message, chars);
    }
    return chars;
  }

  #totalChars(messages: readonly ChatMessage[]): number {
    let chars = this.#fixedChars;
    for (const m of messages) chars += this.#charsOf(m);
    return chars;
  }

  /** The estimated tokens of a request with these messages. */
  estimate(messages: readonly ChatMessage[]): number {
    return Math.ceil(this.#totalChars(messages) * this.#ratio);
  }

  /** After a turn: the provider's count of the request just answered sets the tokens per character. */
  observe(messages: readonly ChatMessage[], inputTokens: number): void {
    if (inputTokens > 0) this.#ratio = inputTokens / this.#totalChars(messages);
  }

  /** Trims `messages` in place, oldest tool results first, when the next request would pass the limit. */
  fit(messages: ChatMessage[]): Fit {
    let tokens = this.estimate(messages);
    let trimmed = 0;
    if (tokens > this.#limit) {
      const target = this.#limit * TRIM_TO;
      // The results after the last assistant message are what the model is about to read: kept.
      const end = messages.findLastIndex((m) => m.role === "assistant");
      for (let i = 0; i < end && tokens > target; i++) {
        const message = messages[i];
        if (message?.role !== "tool") continue;
        const results = message.results.map((r) => {
          if (tokens <= target || this.#trimmed.has(r)) return r;
          const short: ToolResultEntry = { ...r, text: marker(r) };
          this.#trimmed.add(short);
          trimmed += 1;
          tokens -= Math.max(0, r.text.length - short.text.length) * this.#ratio;
          return short;
        });
        if (results.some((r, k) => r !== message.results[k])) messages[i] = { role: "tool", results };
      }
      tokens = this.estimate(messages);
    }
    return { trimmed, tokens, overflows: tokens > this.#window };
  }
}
