import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
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
export function parseJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  if (isObject(value) && isResponse(value)) return value as JSONRPCMessage;
  return JSONRPCMessageSchema.parse(value);
}

/**
 * Buffers a stdio stream into JSON-RPC messages, one per line, as the SDK's `ReadBuffer` does (the
 * same size limit), with responses taken without the whole-message schema check ({@link parseJsonRpcLine}).
 */
export class JsonRpcLineReader {
  #buffer: Buffer | undefined;
  readonly #maxBufferSize: number;

  constructor(maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#maxBufferSize = maxBufferSize;
  }

  append(chunk: Buffer): void {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > this.#maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBufferSize} bytes`);
    }
    this.#buffer = this.#buffer?.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next whole message, or null until a whole line has arrived. Throws for a line that is not one. */
  readMessage(): JSONRPCMessage | null {
    const buffer = this.#buffer;
    if (!buffer) return null;
    const index = buffer.indexOf(10);
    if (index === -1) return null;
    const end = index > 0 && buffer[index - 1] === 13 ? index - 1 : index;
    const line = buffer.toString("utf8", 0, end);
    this.#buffer = index + 1 < buffer.length ? buffer.subarray(index + 1) : undefined;
    return parseJsonRpcLine(line);
  }

  clear(): void {
    this.#buffer = undefined;
  }
}
