/** The default largest message a stdio reader takes: 16 MiB. */
const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The environment variable that sets the largest stdio message (bytes) for every reader of the process. */
const MAX_MESSAGE_BYTES_ENV = "FLOW_MAX_MESSAGE_BYTES";

/** How many bytes of an oversized line's start and end are kept: enough for a JSON-RPC id. */
const EDGE_BYTES = 256;

/** A line longer than the limit, dropped: its size and its first and last bytes. */
export interface OversizedLine {
  /** Bytes of the line (without its newline). */
  bytes: number;
  /** Its first bytes (up to 256). */
  head: Buffer;
  /** Its last bytes (up to 256). */
  tail: Buffer;
}

/** What a {@link BoundedLineSplitter} hands on. */
export interface LineHandlers {
  /** A whole line within the limit, without its `\n` (a trailing `\r` is kept). */
  onLine(line: Buffer): void;
  /** A line over the limit, once its end arrived; its bytes were never kept in memory. */
  onOversized(line: OversizedLine): void;
}

/**
 * The largest stdio message of this process: `FLOW_MAX_MESSAGE_BYTES` when it is a positive integer,
 * else 16 MiB. Throws for a value that is not one (a typo must not silently mean the default).
 */
export function maxMessageBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_MESSAGE_BYTES_ENV];
  if (raw === undefined || raw === "") return DEFAULT_MAX_MESSAGE_BYTES;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${MAX_MESSAGE_BYTES_ENV} must be a positive whole number of bytes, not "${raw}"`);
  return value;
}

/**
 * Splits a byte stream into newline-ended lines, holding at most `maxLineBytes` of a line: a longer
 * one is skipped to its newline (only its size and edges are kept) and reported, and the stream
 * resyncs on the next line. Never throws, so one oversized message cannot take its process down.
 *
 * @example
 * const splitter = new BoundedLineSplitter(16 * 1024 * 1024, { onLine, onOversized });
 * child.stdout.on("data", (chunk) => splitter.push(chunk));
 */
export class BoundedLineSplitter {
  readonly maxLineBytes: number;
  readonly #handlers: LineHandlers;
  #pieces: Buffer[] = [];
  #pending = 0;
  /** Set while the rest of an oversized line is skipped. */
  #skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(maxLineBytes: number, handlers: LineHandlers) {
    this.maxLineBytes = maxLineBytes;
    this.#handlers = handlers;
  }

  /** Takes the next bytes of the stream. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#endLine();
      start = newline + 1;
    }
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    const skipping = this.#skipping;
    if (skipping) {
      skipping.bytes += piece.length;
      skipping.tail = lastBytes(Buffer.concat([skipping.tail, lastBytes(piece)]));
      return;
    }
    if (this.#pending + piece.length <= this.maxLineBytes) {
      this.#pieces.push(piece);
      this.#pending += piece.length;
      return;
    }
    // Over the limit: keep the edges (copies, so the chunks can go) and drop the rest.
    const kept = Buffer.concat([...this.#pieces, piece.subarray(0, EDGE_BYTES)]);
    this.#skipping = {
      bytes: this.#pending + piece.length,
      head: Buffer.from(kept.subarray(0, EDGE_BYTES)),
      tail: Buffer.from(lastBytes(piece)),
    };
    this.#pieces = [];
    this.#pending = 0;
  }

  #endLine(): void {
    const skipping = this.#skipping;
    if (skipping) {
      this.#skipping = undefined;
      this.#handlers.onOversized(skipping);
      return;
    }
    const line = this.#pieces.length === 1 ? (this.#pieces[0] as Buffer) : Buffer.concat(this.#pieces);
    this.#pieces = [];
    this.#pending = 0;
    this.#handlers.onLine(line);
  }

  /** Forgets a partial line (the stream was closed or restarted). */
  clear(): void {
    this.#pieces = [];
    this.#pending = 0;
    this.#skipping = undefined;
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length > EDGE_BYTES ? buffer.subarray(buffer.length - EDGE_BYTES) : buffer;
}
