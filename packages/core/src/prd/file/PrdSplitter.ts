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

/**
 * Where the scan is: before the root object, in it (outside the stories array), in the stories array
 * between elements (`first`, after an element, after a comma), in an element, after the root, or lost.
 */
type State = "start" | "root" | "first" | "after" | "comma" | "element" | "end" | "failed";

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
 * strings, nesting, the root's keys and the separators of the `userStories` array; everything it
 * hands over is then checked by `JSON.parse` (each element, and the PRD's head with the array
 * emptied), so together they accept exactly what `JSON.parse` of the whole accepts. Anything it does
 * not expect (a root that is not an object, no or two `userStories` keys, a value that is not an
 * array, a missing or trailing comma) makes it unusable: the caller then parses the whole text.
 */
export class PrdSplitter {
  readonly #onElement: (element: SplitElement) => void;
  /** The bytes still needed (the head before the array, the element being read, the head after it), from file offset #kept. */
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #offset = 0;
  #state: State = "start";
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1, the next string is a key (after `{` or `,`). */
  #expectKey = false;
  /** The last key was `userStories`: its value comes next. */
  #storiesNext = false;
  #seen = false;
  /** Where the key or the element being read starts (-1: none). */
  #mark = -1;
  /** The element being read is a number, true, false or null: it ends at a separator. */
  #literal = false;
  /** Where the stories array's `[` and `]` are. */
  #open = -1;
  #close = -1;
  /** The bytes up to the array's `[`, copied when it opens (their chunks are dropped as stories are read). */
  #head = Buffer.alloc(0);

  constructor(onElement: (element: SplitElement) => void) {
    this.#onElement = onElement;
  }

  /** Scans the next chunk (it is kept by reference: pass a buffer that is not reused). */
  push(chunk: Buffer): void {
    if (this.#state === "failed") return;
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
          this.#stringEnd(base + i);
        }
        continue;
      }
      if (this.#depth >= 3) {
        // Inside a story's object or array (or a field's) only strings and brackets matter.
        while (i < n && !STRUCTURAL[chunk[i] as number]) i++;
        if (i >= n) break;
      }
      if (!this.#byte(chunk[i] as number, base + i)) {
        this.#state = "failed";
        this.#chunks.length = 0;
        return;
      }
      i++;
    }
    this.#offset += n;
    // Kept: all before the array (the head), from the element being read, all after the array.
    const keep = this.#close >= 0 ? this.#close : this.#open < 0 ? 0 : this.#mark >= 0 ? this.#mark : this.#offset;
    while (this.#chunks.length && this.#kept + (this.#chunks[0]?.length ?? 0) <= keep)
      this.#kept += this.#chunks.shift()?.length ?? 0;
  }

  /**
   * Ends the input: the PRD's own fields as JSON text with `userStories` emptied, or undefined when the
   * input was not a PRD this splitter can take apart (then nothing it handed over may be trusted).
   */
  finish(): string | undefined {
    if (this.#state !== "end" || this.#close < 0) return undefined;
    return Buffer.concat([this.#head, this.#slice(this.#close, this.#offset)]).toString("utf8");
  }

  /** One byte outside strings (and, inside stories, only a quote or a bracket); false: not a PRD to split. */
  #byte(byte: number, at: number): boolean {
    if (this.#literal) {
      if (!isSpace(byte) && byte !== COMMA && byte !== CLOSE_ARRAY) return true;
      this.#element(at);
    }
    if (isSpace(byte)) return true;
    switch (this.#state) {
      case "start":
        this.#depth = 1;
        this.#expectKey = true;
        this.#state = "root";
        return byte === OPEN_OBJECT;
      case "first":
      case "after":
      case "comma":
        if (byte === CLOSE_ARRAY && this.#state !== "comma") {
          this.#depth = 1;
          this.#close = at;
          this.#state = "root";
          return true;
        }
        if (this.#state === "after") {
          this.#state = "comma";
          return byte === COMMA;
        }
        if (byte === COMMA || byte === CLOSE_ARRAY) return false;
        this.#mark = at;
        this.#state = "element";
        if (byte === QUOTE) this.#inString = true;
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.#depth = 3;
        else this.#literal = true;
        return true;
      case "element":
        if (byte === QUOTE) this.#inString = true;
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.#depth++;
        else if (--this.#depth === 2) this.#element(at + 1);
        return true;
      case "root":
        if (this.#storiesNext && byte !== COLON) {
          this.#storiesNext = false;
          if (byte !== OPEN_ARRAY) return false;
          this.#open = at;
          this.#head = Buffer.from(this.#slice(0, at + 1));
          this.#depth = 2;
          this.#state = "first";
          return true;
        }
        if (byte === QUOTE) {
          this.#inString = true;
          if (this.#depth === 1 && this.#expectKey) this.#mark = at;
          this.#expectKey = false;
        } else if (byte === COMMA) this.#expectKey = this.#depth === 1;
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.#depth++;
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          if (--this.#depth === 0) this.#state = "end";
        }
        return true;
      default:
        return false;
    }
  }

  /** A string ended just before `end`: a story that is a string, or a key of the root. */
  #stringEnd(end: number): void {
    if (this.#state === "element" && this.#depth === 2) this.#element(end);
    else if (this.#state === "root" && this.#mark >= 0) {
      let key: unknown;
      try {
        key = JSON.parse(this.#slice(this.#mark, end).toString("utf8"));
      } catch {
        this.#state = "failed";
      }
      this.#mark = -1;
      if (key !== "userStories") return;
      // JSON.parse keeps the last of two keys: the split could not tell which one a reader means.
      if (this.#seen) this.#state = "failed";
      this.#seen = this.#storiesNext = true;
    }
  }

  /** The element being read ended just before `end`. */
  #element(end: number): void {
    const start = this.#mark;
    this.#mark = -1;
    this.#literal = false;
    this.#state = "after";
    this.#onElement({ bytes: this.#slice(start, end), start, end });
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
