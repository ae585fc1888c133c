import { Tokenizer, TokenType } from "@streamparser/json";

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** One element of `userStories`: its bytes and where they are in the file. */
export interface SplitElement {
  bytes: Buffer;
  /** Byte offset of its first byte in the file. */
  start: number;
  /** Byte offset just past its last byte. */
  end: number;
}

/**
 * Splits a strict JSON PRD into its stories from a stream of byte chunks, keeping no more than one
 * story and the PRD's own fields: a PRD of any size is read in constant memory. A JSON tokenizer
 * (`@streamparser/json`, which refuses what is not JSON token by token) gives the tokens and their byte
 * offsets; this tracks the nesting, the root's keys and the separators of the `userStories` array:
 * each element is the bytes from its first token to the next separator, without the spaces before it.
 * Everything it hands over is then checked by `JSON.parse` (each element, and the PRD's head with the
 * array emptied), so together they accept exactly what `JSON.parse` of the whole accepts. An empty
 * element or one holding two values (a comma missing, doubled or trailing) makes it unusable, as do two
 * `userStories` keys, a value that is not an array, and an input that does not end where its root
 * does: the caller then parses the whole text.
 */
export class PrdSplitter {
  readonly #onElement: (element: SplitElement) => void;
  readonly #tokens = new Tokenizer({ stringBufferSize: 64 * 1024 });
  /** The bytes still needed (the head before the array, the element being read, the head after it), from file offset #kept. */
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #offset = 0;
  #failed = false;
  #depth = 0;
  /** The root closed: nothing may follow. */
  #ended = false;
  /** The last string at depth 1: a key when a colon follows. */
  #key: unknown;
  /** The last key was `userStories`: its array comes next. */
  #storiesNext = false;
  #seen = false;
  /** Where the stories array's `[` and `]` are. */
  #open = -1;
  #close = -1;
  /** Where the element being read starts (-1: not yet), where the separator before it ends, and how many were read. */
  #start = -1;
  #after = 0;
  #elements = 0;
  /** The bytes up to the array's `[`, copied when it opens (their chunks are dropped as stories are read). */
  #head = Buffer.alloc(0);

  constructor(onElement: (element: SplitElement) => void) {
    this.#onElement = onElement;
    this.#tokens.onToken = ({ token, value, offset }) => {
      if (!this.#failed && !this.#token(token, value, offset)) this.#failed = true;
    };
    // Not JSON: the tokenizer stops, and so does the split.
    this.#tokens.onError = () => {
      this.#failed = true;
    };
  }

  /** Scans the next chunk (it is kept by reference: pass a buffer that is not reused). */
  push(chunk: Buffer): void {
    if (this.#failed) return;
    this.#chunks.push(chunk);
    this.#tokens.write(chunk);
    if (this.#failed) {
      this.#chunks.length = 0;
      return;
    }
    this.#offset += chunk.length;
    // Kept: all before the array (the head), from the element being read, all after the array.
    // A string or number token comes once it ended: kept from the separator before it.
    const keep = this.#close >= 0 ? this.#close : this.#open < 0 ? 0 : this.#start >= 0 ? this.#start : this.#after;
    while (this.#chunks.length && this.#kept + (this.#chunks[0]?.length ?? 0) <= keep)
      this.#kept += this.#chunks.shift()?.length ?? 0;
  }

  /**
   * Ends the input: the PRD's own fields as JSON text with `userStories` emptied, or undefined when the
   * input was not a PRD this splitter can take apart (then nothing it handed over may be trusted).
   */
  finish(): string | undefined {
    if (this.#failed || this.#close < 0 || !this.#ended) return undefined;
    return Buffer.concat([this.#head, this.#slice(this.#close, this.#offset)]).toString("utf8");
  }

  /** One token at byte offset `at`; false: not a PRD to split. */
  #token(token: TokenType, value: unknown, at: number): boolean {
    if (this.#ended) return false;
    if (this.#storiesNext) {
      this.#storiesNext = false;
      if (token !== TokenType.LEFT_BRACKET || this.#depth !== 1) return false;
      this.#open = at;
      this.#after = at + 1;
      this.#head = Buffer.from(this.#slice(0, at + 1));
      this.#depth = 2;
      return true;
    }
    const inArray = this.#depth === 2 && this.#open >= 0 && this.#close < 0;
    if (inArray && (token === TokenType.COMMA || token === TokenType.RIGHT_BRACKET)) {
      if (this.#start >= 0) {
        const bytes = this.#slice(this.#start, at);
        let length = bytes.length;
        while (isSpace(bytes[length - 1])) length--;
        this.#onElement({ bytes: bytes.subarray(0, length), start: this.#start, end: this.#start + length });
        this.#start = -1;
        this.#after = at + 1;
        this.#elements++;
      } else if (token === TokenType.COMMA || this.#elements > 0) return false;
      if (token === TokenType.RIGHT_BRACKET) {
        this.#depth = 1;
        this.#close = at;
      }
      return true;
    }
    if (inArray) {
      // A second value before a separator: a missing comma.
      if (this.#start >= 0) return false;
      this.#start = at;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.#depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.#ended = --this.#depth === 0;
    else if (token === TokenType.STRING && this.#depth === 1) this.#key = value;
    else if (token === TokenType.COLON && this.#depth === 1 && this.#key === "userStories") {
      // JSON.parse keeps the last of two keys: the split could not tell which one a reader means.
      if (this.#seen) return false;
      this.#seen = this.#storiesNext = true;
    }
    return true;
  }

  /** The bytes from `from` to `to` (file offsets), of the chunks still kept. */
  #slice(from: number, to: number): Buffer {
    const parts: Buffer[] = [];
    let at = this.#kept;
    for (const chunk of this.#chunks) {
      if (at >= to) break;
      const start = Math.max(from - at, 0);
      const end = Math.min(to - at, chunk.length);
      if (start < end) parts.push(chunk.subarray(start, end));
      at += chunk.length;
    }
    return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }
}
