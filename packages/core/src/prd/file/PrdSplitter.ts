const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Bytes that matter inside a story's object or array: quotes and brackets. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) STRUCTURAL[byte] = 1;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

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
 * story and the PRD's own fields: a PRD of any size is read in constant memory. It tracks only
 * strings, nesting, the root's keys and the commas of the `userStories` array: each element is the
 * bytes between two separators, without the spaces around them. Everything it hands over is then
 * checked by `JSON.parse` (each element, and the PRD's head with the array emptied), so together they
 * accept exactly what `JSON.parse` of the whole accepts. An element that is empty or holds two values
 * (a comma missing, doubled or trailing) makes it unusable, as do two `userStories` keys, a value that
 * is not an array, and an input that does not end where its root does: the caller then parses the
 * whole text.
 */
export class PrdSplitter {
  readonly #onElement: (element: SplitElement) => void;
  /** The bytes still needed (the head before the array, the element being read, the head after it), from file offset #kept. */
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #offset = 0;
  #failed = false;
  #depth = 0;
  /** The root closed: only spaces may follow. */
  #ended = false;
  #inString = false;
  #escape = false;
  /** Where the last string at depth 1 starts and ends: a key when a colon follows. */
  #string: [number, number] = [-1, -1];
  /** The last key was `userStories`: its array comes next. */
  #storiesNext = false;
  #seen = false;
  /** Where the stories array's `[` and `]` are. */
  #open = -1;
  #close = -1;
  /** The element being read: where it starts (-1: not yet), where its last byte so far ends, and whether it is a number, true, false or null. */
  #start = -1;
  #end = -1;
  #literal = false;
  #elements = 0;
  /** The bytes up to the array's `[`, copied when it opens (their chunks are dropped as stories are read). */
  #head = Buffer.alloc(0);

  constructor(onElement: (element: SplitElement) => void) {
    this.#onElement = onElement;
  }

  /** Scans the next chunk (it is kept by reference: pass a buffer that is not reused). */
  push(chunk: Buffer): void {
    if (this.#failed) return;
    this.#chunks.push(chunk);
    const base = this.#offset;
    const n = chunk.length;
    // The next backslash at or after `i` (n: none), looked up again only once passed: searching for it
    // at every string would scan the rest of the chunk each time.
    let slash = -1;
    for (let i = 0; i < n; ) {
      if (this.#inString) {
        if (this.#escape) {
          this.#escape = false;
          i++;
          continue;
        }
        const quote = chunk.indexOf(QUOTE, i);
        if (slash < i) {
          slash = chunk.indexOf(BACKSLASH, i);
          if (slash < 0) slash = n;
        }
        if (slash < n && (quote < 0 || slash < quote)) {
          i = slash + 1;
          this.#escape = true;
        } else if (quote < 0) i = n;
        else {
          i = quote + 1;
          this.#inString = false;
          if (this.#depth === 1) this.#string[1] = base + i;
          if (this.#inArray()) this.#end = base + i;
        }
        continue;
      }
      if (this.#depth >= 3) {
        // Inside a story's object or array (or a field's) only strings and brackets matter.
        while (i < n && !STRUCTURAL[chunk[i] as number]) i++;
        if (i >= n) break;
      }
      const byte = chunk[i] as number;
      if (!isSpace(byte) && !this.#byte(byte, base + i)) {
        this.#failed = true;
        this.#chunks.length = 0;
        return;
      }
      i++;
    }
    this.#offset += n;
    // Kept: all before the array (the head), from the element being read, all after the array.
    const keep = this.#close >= 0 ? this.#close : this.#open < 0 ? 0 : this.#start >= 0 ? this.#start : this.#offset;
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

  /** Between two elements of the stories array (it is open, not closed, and no element is nested deeper). */
  #inArray(): boolean {
    return this.#depth === 2 && this.#open >= 0 && this.#close < 0;
  }

  /** One byte outside strings other than a space (inside stories, only a quote or a bracket); false: not a PRD to split. */
  #byte(byte: number, at: number): boolean {
    if (this.#ended) return false;
    if (this.#storiesNext) {
      this.#storiesNext = false;
      if (byte !== OPEN_ARRAY || this.#depth !== 1) return false;
      this.#open = at;
      this.#head = Buffer.from(this.#slice(0, at + 1));
      this.#depth = 2;
      return true;
    }
    if (this.#inArray() && (byte === COMMA || byte === CLOSE_ARRAY)) {
      if (this.#start >= 0) {
        const [start, end] = [this.#start, this.#end];
        this.#start = -1;
        this.#elements++;
        this.#onElement({ bytes: this.#slice(start, end), start, end });
      } else if (byte === COMMA || this.#elements > 0) return false;
      if (byte === CLOSE_ARRAY) {
        this.#depth = 1;
        this.#close = at;
      }
      return true;
    }
    if (this.#inArray()) {
      if (this.#start < 0) {
        this.#start = at;
        this.#literal = byte !== QUOTE && byte !== OPEN_OBJECT && byte !== OPEN_ARRAY;
      } else if (!this.#literal || this.#end !== at) return false; // a second value: a missing comma
    }
    if (byte === QUOTE) {
      this.#inString = true;
      if (this.#depth === 1) this.#string = [at, -1];
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.#depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      this.#ended = --this.#depth === 0;
    } else if (byte === COLON && this.#depth === 1 && !this.#key()) return false;
    if (this.#inArray()) this.#end = at + 1;
    return true;
  }

  /** A colon at depth 1: the string before it is a key of the root. False for a second `userStories`. */
  #key(): boolean {
    const [start, end] = this.#string;
    if (start < 0 || end < 0) return false;
    let key: unknown;
    try {
      key = JSON.parse(this.#slice(start, end).toString("utf8"));
    } catch {
      return false;
    }
    if (key !== "userStories") return true;
    // JSON.parse keeps the last of two keys: the split could not tell which one a reader means.
    if (this.#seen) return false;
    this.#seen = this.#storiesNext = true;
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
