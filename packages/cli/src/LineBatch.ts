/** Bytes of lines held before they are written without waiting for the event loop to turn. */
const MAX_HELD = 64 * 1024;

/**
 * Lines written in batches: the lines pushed by one piece of synchronous code go out together right
 * after it (a microtask; sooner past 64 KB), in order. A run hands over its events in groups, so its
 * thousands of `--json` events cost a few writes instead of one each, and an event is on stdout as
 * soon as the run has published it. `flush()` writes what is held at once.
 */
export class LineBatch {
  readonly #write: (text: string) => void;
  #held = "";
  #scheduled = false;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Queues one line (a newline is added). */
  push(line: string): void {
    this.#held += `${line}\n`;
    if (this.#held.length > MAX_HELD) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Writes every held line now. */
  flush(): void {
    this.#scheduled = false;
    if (!this.#held) return;
    const text = this.#held;
    this.#held = "";
    this.#write(text);
  }
}
