import { chmodSync, createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { StderrTail } from "./StderrTail.js";
import { scrubText } from "./secrets.js";

/** Where a server's stderr goes: its last lines (for error messages), a log file, a callback. */
export interface ServerLogOptions {
  /** Appends to `<dir>/<server>.log`. */
  dir?: string;
  onStderr?: (server: string, text: string) => void;
}

/**
 * One server's stderr, scrubbed of its config's secret values before it is kept, written or passed
 * on: secrets never reach a log, even when a server prints its own environment.
 */
export class ServerLog {
  private readonly tail = new StderrTail();
  private stream: WriteStream | undefined;

  constructor(
    private readonly server: string,
    private readonly secrets: readonly string[],
    private readonly options: ServerLogOptions = {},
  ) {}

  /** A new process starts: the tail describes it alone. */
  restart(): void {
    this.tail.clear();
  }

  /** A chunk the server wrote to stderr. */
  stderr(chunk: string): void {
    const safe = scrubText(chunk, this.secrets);
    this.tail.push(safe);
    this.write(safe);
    this.options.onStderr?.(this.server, safe);
  }

  /** A line of meshflow's own about the server (file only). */
  note(text: string): void {
    this.write(`[meshflow] ${scrubText(text, this.secrets)}\n`);
  }

  /** The last lines of stderr, newline-separated; empty when the server wrote nothing. */
  tailText(): string {
    return this.tail.text();
  }

  private write(text: string): void {
    const dir = this.options.dir;
    if (!dir) return;
    if (!this.stream) {
      // Owner only: a server's stderr may say more than it should, even with the config's secrets masked.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, `${this.server}.log`);
      this.stream = createWriteStream(file, { flags: "a", mode: 0o600 });
      try {
        chmodSync(file, 0o600); // a log created by an earlier version may be world-readable
      } catch {
        // Created by the stream when it opens; it has the mode above then.
      }
      this.stream.on("error", () => {
        // A log that cannot be written must not take the server down with it.
        this.stream = undefined;
      });
    }
    this.stream.write(text);
  }

  /** Flushes and closes the log file. */
  async close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (stream) await new Promise<void>((resolve) => stream.end(resolve));
  }
}
