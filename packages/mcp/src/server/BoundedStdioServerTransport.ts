import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcLineReader } from "../internal/JsonRpcLineReader.js";
import { NoiseLog, OversizedMessageError, tooLargeResponse } from "../internal/oversized.js";

/**
 * The server side of stdio (what `flow serve` reads from its client), like the SDK's
 * `StdioServerTransport` but bounded: a request over the per-message limit (`FLOW_MAX_MESSAGE_BYTES`,
 * default 16 MiB) is answered with a `result_too_large` error for its id and the stream resyncs on
 * the next line, where the SDK's reader threw and ended the process for every client. Lines that are
 * not JSON-RPC are reported through `onerror` up to a cap, then only counted.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #started = false;
  readonly #noise = new NoiseLog((error) => this.onerror?.(error));
  readonly #reader: JsonRpcLineReader;
  readonly #ondata = (chunk: Buffer) => this.#reader.push(chunk);
  readonly #onerror = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    maxMessageBytes?: number,
  ) {
    this.#reader = new JsonRpcLineReader(
      {
        onMessage: (message) => this.onmessage?.(message),
        onOversized: (oversized) => {
          if (oversized.id !== undefined) void this.send(tooLargeResponse(oversized.id, oversized));
          else this.onerror?.(new OversizedMessageError(oversized));
        },
        onNoise: (line, error) => this.#noise.line(line, error),
      },
      maxMessageBytes,
    );
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("BoundedStdioServerTransport already started");
    this.#started = true;
    this.stdin.on("data", this.#ondata);
    this.stdin.on("error", this.#onerror);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.#ondata);
    this.stdin.off("error", this.#onerror);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.#reader.clear();
    this.#noise.finish();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
