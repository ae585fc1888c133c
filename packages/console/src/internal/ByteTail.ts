import { OutputBuffer, stripAnsi } from "@meshflow/core";

/**
 * The last `max` bytes written to a stream (a child's stderr), read back as text: core's
 * `OutputBuffer` keeps the bytes (a character split between two chunks is read whole, one cut at the
 * front is dropped); once the beginning was dropped the text starts at a whole line, and terminal
 * colour codes are removed.
 */
export class ByteTail {
  readonly #buffer: OutputBuffer;

  constructor(max: number) {
    this.#buffer = new OutputBuffer(Math.max(0, Math.floor(max)));
  }

  /** Appends a chunk, dropping from the front what passes the bound. */
  push(chunk: Buffer): void {
    this.#buffer.write(chunk);
  }

  /** The kept bytes as UTF-8 text without terminal colour codes. */
  text(): string {
    let text = this.#buffer.text();
    const newline = this.#buffer.truncated ? text.indexOf("\n") : -1;
    if (newline >= 0 && newline < text.length - 1) text = text.slice(newline + 1);
    return stripAnsi(text);
  }
}
