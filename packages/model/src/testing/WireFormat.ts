import type { CacheBlock, CacheStyle } from "./PromptCache.js";
import type { ReceivedMessage, ReceivedRequest } from "./ReceivedRequest.js";
import type { ResolvedReply } from "./ScriptedReply.js";

/** What a wire format reads out of a request body. */
export interface ParsedRequest {
  model: string;
  stream: boolean;
  system: string;
  messages: ReceivedMessage[];
  tools: ReceivedRequest["tools"];
}

/** Facts about one exchange a wire format needs to render its answer. */
export interface ReplyContext {
  /** The model the request asked for, echoed back. */
  model: string;
  /** A number unique to this exchange, for the response id. */
  sequence: number;
  /** The raw request body (OpenAI reads `stream_options.include_usage` from it). */
  body: Record<string, unknown>;
}

/** One provider API the scripted server speaks: how it reads requests and writes answers and errors. */
export interface WireFormat {
  readonly api: ReceivedRequest["api"];
  /** Prefix of default tool call ids (`call_`, `toolu_`). */
  readonly toolCallIdPrefix: string;
  parseRequest(body: Record<string, unknown>): ParsedRequest;
  isAuthorized(headers: Record<string, string>, apiKey: string): boolean;
  /** The non-streaming JSON answer. */
  response(reply: ResolvedReply, context: ReplyContext): unknown;
  /** The streaming answer as server-sent-event frames, in order. */
  streamFrames(reply: ResolvedReply, context: ReplyContext): string[];
  /** The JSON body of an error answer with this HTTP status. */
  errorBody(status: number, message: string): unknown;
  /** How the provider caches prompts, when the server models its cache. */
  readonly cacheStyle?: CacheStyle;
  /** The request's prefix blocks in the order the provider caches them (tools, system, messages). */
  cacheBlocks?(body: Record<string, unknown>): CacheBlock[];
  /** The message of the provider's refusal of a prompt longer than its context window. */
  tooLong?(tokens: number, window: number): string;
}

/** A JSON value without its `cache_control` (a prefix matches whatever marks it carries). */
export function unmarked(value: unknown): string {
  if (!isRecord(value)) return JSON.stringify(value);
  const { cache_control: _mark, ...rest } = value;
  return JSON.stringify(rest);
}

/** Narrows an unknown JSON value to an object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value if it is a string, else `fallback`. */
export function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** The elements of a JSON array that are objects; [] for anything else. */
export function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Text of a message `content`: a string, or the `text` of its `{ type: "text" }` parts joined. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return records(content)
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/** Parses tool call arguments; input that is not a JSON object is kept whole under `_raw`. */
export function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text === "" ? "{}" : text);
    if (isRecord(value)) return value;
  } catch {
    // fall through: the raw text is still worth asserting on
  }
  return { _raw: text };
}

/** Splits text into at most `count` consecutive non-empty pieces, so streams carry real deltas. */
export function splitPieces(text: string, count = 3): string[] {
  if (text.length === 0) return [];
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

/** One server-sent-event frame. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}
