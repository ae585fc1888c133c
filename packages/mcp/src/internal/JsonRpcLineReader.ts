import { BoundedLineSplitter, maxMessageBytes, type OversizedLine } from "@meshflow/core";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * True for a JSON-RPC response (a result or an error for a request id). The schema check of the whole
 * message is skipped for these: the SDK checks a result against the request's own result schema when
 * it takes it, so checking it against the union of every message first only costs time on every call.
 */
function isResponse(value: Record<string, unknown>): boolean {
  if (value.jsonrpc !== "2.0" || "method" in value) return false;
  const id = value.id;
  if (typeof id !== "string" && typeof id !== "number") return false;
  if ("result" in value) return isObject(value.result) && !("error" in value);
  const error = value.error;
  return isObject(error) && Number.isInteger(error.code) && typeof error.message === "string";
}

/** One newline-delimited JSON-RPC message; requests and notifications are checked against the SDK's schema. */
function parseJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (isObject(value) && isResponse(value)) return value as JSONRPCMessage;
  return JSONRPCMessageSchema.parse(value);
}

/** An oversized message: its size, the limit, and its JSON-RPC id when its first or last bytes say it. */
export interface OversizedMessage {
  bytes: number;
  limit: number;
  id?: string | number;
}

/** What a {@link JsonRpcLineReader} hands on. */
export interface JsonRpcHandlers {
  onMessage(message: JSONRPCMessage): void;
  /** A message over the limit, dropped without being held in memory; the stream goes on with the next one. */
  onOversized(message: OversizedMessage): void;
  /** A line that is not a JSON-RPC message (a server's stray output); `error` says why. */
  onNoise(line: string, error: Error): void;
}

// The SDK writes `{"result":…,"jsonrpc":"2.0","id":7}` (id last); others write it first.
const ID_FIRST = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_LAST = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/** The id of a JSON-RPC message from the edges of its text, or undefined when they do not say it. */
function idAtEdges(line: OversizedLine): string | number | undefined {
  const found = ID_FIRST.exec(line.head.toString("utf8")) ?? ID_LAST.exec(line.tail.toString("utf8"));
  if (!found?.[1]) return undefined;
  try {
    const id: unknown = JSON.parse(found[1]);
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Longest part of a noise line handed on: enough to see what it is. */
const NOISE_TEXT = 500;

/**
 * Reads a stdio stream as newline-delimited JSON-RPC messages, each at most `maxMessageBytes`
 * (default {@link maxMessageBytes}: `FLOW_MAX_MESSAGE_BYTES`, else 16 MiB). Unlike the SDK's
 * `ReadBuffer`, it never throws: a message over the limit and a line that is not JSON-RPC are
 * reported to their handlers and the stream goes on, so one bad message costs one call, not the process.
 */
export class JsonRpcLineReader {
  readonly #splitter: BoundedLineSplitter;
  readonly #handlers: JsonRpcHandlers;

  constructor(handlers: JsonRpcHandlers, maxBytes: number = maxMessageBytes()) {
    this.#handlers = handlers;
    this.#splitter = new BoundedLineSplitter(maxBytes, {
      onLine: (line) => this.#line(line),
      onOversized: (line) => {
        const id = idAtEdges(line);
        handlers.onOversized({ bytes: line.bytes, limit: maxBytes, ...(id !== undefined ? { id } : {}) });
      },
    });
  }

  /** The largest message taken, in bytes. */
  get maxMessageBytes(): number {
    return this.#splitter.maxLineBytes;
  }

  /** Takes the next bytes of the stream; handlers are called for every line they complete. */
  push(chunk: Buffer): void {
    this.#splitter.push(chunk);
  }

  #line(bytes: Buffer): void {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    const line = bytes.toString("utf8", 0, end);
    if (!line.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = parseJsonRpcLine(line);
    } catch (error) {
      this.#handlers.onNoise(line.slice(0, NOISE_TEXT), error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#handlers.onMessage(message);
  }

  /** Forgets a partial message (the stream was closed). */
  clear(): void {
    this.#splitter.clear();
  }
}
