/** Bytes of lines held before they are written without waiting for the event loop to turn. */
const MAX_HELD = 64 * 1024;

/**
 * Lines written in batches: once per turn of the event loop (or sooner past 64 KB), in order, so a
 * run's thousands of `--json` events cost a few writes instead of one each. `flush()` writes what is
 * held at once (before exit, before anything else is printed).
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
      setImmediate(() => this.flush());
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
