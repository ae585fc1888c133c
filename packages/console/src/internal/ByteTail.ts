import { stripAnsi } from "@meshflow/core";

/**
 * The last `max` bytes written to a stream (a child's stderr), read back as text. Bytes are kept, not
 * text decoded chunk by chunk, so a character split between two chunks is read whole; once the
 * beginning was dropped the text starts at a whole line (or, for one long line, a whole character).
 */
export class ByteTail {
  readonly max: number;
  #bytes: Buffer = Buffer.alloc(0);
  #cut = false;

  constructor(max: number) {
    this.max = Math.max(0, Math.floor(max));
  }

  /** Appends a chunk, dropping from the front what passes the bound. */
  push(chunk: Buffer): void {
    const total = this.#bytes.length + chunk.length;
    if (total <= this.max) {
      this.#bytes = Buffer.concat([this.#bytes, chunk], total);
      return;
    }
    this.#cut = true;
    const kept = Buffer.alloc(this.max);
    const fromChunk = Math.min(chunk.length, this.max);
    const fromKept = this.max - fromChunk;
    this.#bytes.copy(kept, 0, this.#bytes.length - fromKept);
    chunk.copy(kept, fromKept, chunk.length - fromChunk);
    this.#bytes = kept;
  }

  /** The kept bytes as UTF-8 text without terminal colour codes. */
  text(): string {
    let start = 0;
    if (this.#cut) {
      const newline = this.#bytes.indexOf(10);
      if (newline >= 0 && newline < this.#bytes.length - 1) start = newline + 1;
      // UTF-8 continuation bytes (10xxxxxx) are the rest of a character whose start was dropped.
      else while (start < this.#bytes.length && ((this.#bytes[start] ?? 0) & 0xc0) === 0x80) start++;
    }
    return stripAnsi(this.#bytes.subarray(start).toString("utf8"));
  }
}
