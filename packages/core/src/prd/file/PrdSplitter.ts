const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Bytes that open or close a string, an object or an array. */
const STRUCTURAL = new Uint8Array(256);
for (const byte of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) STRUCTURAL[byte] = 1;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** Where the scan is in the stories array (depth 2): what may come next. */
type ArrayState = "first" | "element" | "after" | "done";

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
 * strings, nesting and the separators of the `userStories` array; everything it hands over is then
 * checked by `JSON.parse` (each element, and the PRD's head with the array emptied), so together they
 * accept exactly what `JSON.parse` of the whole accepts. Anything it does not expect (a root that is
 * not an object, no or two `userStories` keys, a value that is not an array, a missing or trailing
 * comma) makes it unusable: the caller then parses the whole text, which says what is wrong.
 */
export class PrdSplitter {
  readonly #onElement: (element: SplitElement) => void;
  /** Bytes of the file outside the stories array (the array's brackets included). */
  readonly #head: Buffer[] = [];
  /** Bytes of the element being read. */
  #element: Buffer[] = [];
  #elementStart = -1;
  /** Bytes of the root key being read, while at depth 1. */
  #key: Buffer[] | undefined;
  #offset = 0;
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1: the next string is a key (after `{` or `,`), not a value. */
  #expectKey = false;
  /** The last key at depth 1 was `userStories`, and its value has not started. */
  #storiesValue = false;
  #seenStories = false;
  #array: ArrayState | undefined;
  /** The element being read is a literal (number, true, false, null): it ends at a separator. */
  #literal = false;
  #rootClosed = false;
  #usable = true;

  constructor(onElement: (element: SplitElement) => void) {
    this.#onElement = onElement;
  }

  /** Scans the next chunk (it is kept by reference: pass a buffer that is not reused). */
  push(chunk: Buffer): void {
    if (!this.#usable) return;
    const base = this.#offset;
    this.#offset += chunk.length;
    let i = 0;
    // Start of the run of bytes of this chunk that belongs to the head (-1: inside the array).
    let headFrom = this.#array === undefined || this.#array === "done" ? 0 : -1;
    let elementFrom = this.#elementStart >= 0 ? 0 : -1;
    let keyFrom = this.#key ? 0 : -1;
    const n = chunk.length;
    // The next backslash at or after `i` (n: none), looked up again only once passed: searching for it
    // at every string would scan the rest of the chunk each time.
    let slash = -1;
    while (i < n) {
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
          continue;
        }
        if (quote < 0) {
          i = n;
          continue;
        }
        i = quote + 1;
        this.#inString = false;
        if (keyFrom >= 0 && this.#key) {
          this.#key.push(chunk.subarray(keyFrom, i));
          this.#endKey();
          keyFrom = -1;
        }
        if (this.#elementIsString()) {
          this.#endElement(chunk, elementFrom, base + i, i);
          elementFrom = -1;
        }
        continue;
      }
      if (this.#depth >= 3) {
        // Inside a story's object or array only strings and brackets matter: skip the rest quickly.
        while (i < n && !STRUCTURAL[chunk[i] as number]) i++;
        if (i >= n) break;
      }
      const byte = chunk[i] as number;
      if (this.#literal && this.#depth === 2 && (isSpace(byte) || byte === COMMA || byte === CLOSE_ARRAY)) {
        this.#literal = false;
        this.#endElement(chunk, elementFrom, base + i, i);
        elementFrom = -1;
      }
      if (this.#array === "first" || this.#array === "after") {
        if (isSpace(byte)) {
          i++;
          continue;
        }
        if (byte === CLOSE_ARRAY) {
          this.#array = "done";
          this.#depth--;
          headFrom = i;
          i++;
          continue;
        }
        if (this.#array === "after") {
          if (byte !== COMMA) {
            this.#fail();
            return;
          }
          this.#array = "element";
          i++;
          continue;
        }
        this.#array = "element";
      }
      if (this.#array === "element" && this.#depth === 2 && this.#elementStart < 0) {
        if (isSpace(byte)) {
          i++;
          continue;
        }
        if (byte === CLOSE_ARRAY || byte === COMMA) {
          this.#fail();
          return;
        }
        this.#elementStart = base + i;
        elementFrom = i;
        if (byte !== OPEN_OBJECT && byte !== OPEN_ARRAY && byte !== QUOTE) this.#literal = true;
      }
      if (this.#rootClosed) {
        if (!isSpace(byte)) {
          this.#fail();
          return;
        }
        i++;
        continue;
      }
      if (this.#depth === 0) {
        if (isSpace(byte)) {
          i++;
          continue;
        }
        if (byte !== OPEN_OBJECT) {
          this.#fail();
          return;
        }
        this.#depth = 1;
        this.#expectKey = true;
        i++;
        continue;
      }
      if (this.#storiesValue && !isSpace(byte) && byte !== COLON) {
        this.#storiesValue = false;
        if (byte !== OPEN_ARRAY) {
          this.#fail();
          return;
        }
        this.#head.push(chunk.subarray(headFrom, i + 1));
        headFrom = -1;
        this.#array = "first";
        this.#depth = 2;
        i++;
        continue;
      }
      switch (byte) {
        case QUOTE:
          this.#inString = true;
          if (this.#depth === 1 && this.#expectKey) {
            this.#key = [];
            keyFrom = i;
            this.#expectKey = false;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.#depth++;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.#depth--;
          if (this.#depth === 0) this.#rootClosed = true;
          else if (this.#depth === 2 && this.#elementStart >= 0) {
            this.#endElement(chunk, elementFrom, base + i + 1, i + 1);
            elementFrom = -1;
          } else if (this.#depth < 0) {
            this.#fail();
            return;
          }
          break;
        case COMMA:
          if (this.#depth === 1) this.#expectKey = true;
          break;
      }
      i++;
    }
    if (headFrom >= 0 && headFrom < n) this.#head.push(chunk.subarray(headFrom));
    if (elementFrom >= 0 && elementFrom < n) this.#element.push(chunk.subarray(elementFrom));
    if (keyFrom >= 0 && keyFrom < n && this.#key) this.#key.push(chunk.subarray(keyFrom));
  }

  /**
   * Ends the input: the PRD's own fields as JSON text with `userStories` emptied, or undefined when the
   * input was not a PRD this splitter can take apart (then nothing it handed over may be trusted).
   */
  finish(): string | undefined {
    if (this.#literal && this.#depth === 2) return this.#fail();
    if (!this.#usable || !this.#rootClosed || !this.#seenStories || this.#array !== "done") return undefined;
    return Buffer.concat(this.#head).toString("utf8");
  }

  #elementIsString(): boolean {
    return this.#depth === 2 && this.#elementStart >= 0 && !this.#literal && this.#array === "element";
  }

  #endKey(): void {
    const bytes = Buffer.concat(this.#key ?? []);
    this.#key = undefined;
    let key: unknown;
    try {
      key = JSON.parse(bytes.toString("utf8"));
    } catch {
      this.#fail();
      return;
    }
    if (key !== "userStories") return;
    // JSON.parse keeps the last of two keys: the split could not tell which one a reader means.
    if (this.#seenStories) {
      this.#fail();
      return;
    }
    this.#seenStories = true;
    this.#storiesValue = true;
  }

  #endElement(chunk: Buffer, from: number, end: number, to: number): void {
    if (from >= 0) this.#element.push(chunk.subarray(from, to));
    const bytes = this.#element.length === 1 ? (this.#element[0] as Buffer) : Buffer.concat(this.#element);
    const start = this.#elementStart;
    this.#element = [];
    this.#elementStart = -1;
    this.#array = "after";
    this.#onElement({ bytes, start, end });
  }

  #fail(): undefined {
    this.#usable = false;
    this.#element = [];
    this.#head.length = 0;
    return undefined;
  }
}
