import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { OversizedMessage } from "./JsonRpcLineReader.js";

/** The JSON-RPC error code of the answer meshflow puts in place of one over the size limit. */
const RESULT_TOO_LARGE_RPC_CODE = -32099;

/** What the stand-in answer's `error.data` carries, so the call's failure says `result_too_large`. */
export interface TooLargeData {
  meshflow: "result_too_large";
  bytes: number;
  limit: number;
}

/** The user-facing limit, as `--help` and the README name it. */
export const LIMIT_SETTING = "--max-message-bytes / FLOW_MAX_MESSAGE_BYTES";

/** True for the `error.data` of a {@link tooLargeResponse}. */
export function isTooLargeData(data: unknown): data is TooLargeData {
  return typeof data === "object" && data !== null && (data as { meshflow?: unknown }).meshflow === "result_too_large";
}

/** An error answer to request `id` standing in for its answer that was too large to read. */
export function tooLargeResponse(id: string | number, oversized: OversizedMessage): JSONRPCMessage {
  const data: TooLargeData = { meshflow: "result_too_large", bytes: oversized.bytes, limit: oversized.limit };
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: RESULT_TOO_LARGE_RPC_CODE,
      message: `the answer is ${oversized.bytes} bytes, more than the limit of ${oversized.limit} (${LIMIT_SETTING})`,
      data,
    },
  };
}

/** A message over the limit whose id could not be read: the connection cannot tell which call it answers. */
export class OversizedMessageError extends Error {
  readonly oversized: OversizedMessage;

  constructor(oversized: OversizedMessage) {
    super(
      `a message of ${oversized.bytes} bytes, more than the limit of ${oversized.limit} (${LIMIT_SETTING}), without a readable id: the server is restarted`,
    );
    this.name = "OversizedMessageError";
    this.oversized = oversized;
  }
}

/** Noise lines logged in full per connection; after that they are only counted. */
const NOISE_LINES_LOGGED = 20;

/**
 * A server's stray stdout lines (not JSON-RPC): the first {@link NOISE_LINES_LOGGED} go to `log`, the
 * rest are only counted and the count is logged once at the end, so a server flooding its stdout
 * cannot fill the disk through meshflow's logs.
 */
export class NoiseLog {
  #lines = 0;

  constructor(private readonly log: (error: Error) => void) {}

  /** One line that is not a JSON-RPC message. */
  line(text: string, error: Error): void {
    this.#lines++;
    if (this.#lines <= NOISE_LINES_LOGGED)
      this.log(new Error(`not a JSON-RPC message (${error.message.split("\n")[0]}): ${text}`));
    else if (this.#lines === NOISE_LINES_LOGGED + 1)
      this.log(new Error(`more lines that are not JSON-RPC messages: counted, not logged`));
  }

  /** How many noise lines were seen. */
  get lines(): number {
    return this.#lines;
  }

  /** Logs how many lines were counted without being logged, once. */
  finish(): void {
    if (this.#lines > NOISE_LINES_LOGGED)
      this.log(new Error(`${this.#lines - NOISE_LINES_LOGGED} more lines that were not JSON-RPC messages, not logged`));
    this.#lines = 0;
  }
}
