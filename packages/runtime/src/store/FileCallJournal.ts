import { appendFileSync, closeSync, existsSync, openSync, readSync, truncateSync, writeSync } from "node:fs";
import { eventTime, MeshflowError, openOwnFileForAppend, type ToolResult } from "@meshflow/core";
import type { CallJournal, JournalEntry, JournalStart } from "@meshflow/mcp";

type Line =
  | { state: "started"; key: string; tool: string; argsDigest: string; at: string }
  | {
      state: "finished";
      key: string;
      result: ToolResult;
      durationMs: number;
      at: string;
      /** Set on a call recorded in one line ({@link FileCallJournal.record}): it has no `started` line. */
      tool?: string;
      argsDigest?: string;
    };

/**
 * What the journal keeps in memory per key: where its lines are in the file (byte offset and length of
 * the `started` line, and of the `finished` line once there is one). Everything else is read back
 * from the file when asked for, so memory stays small per call however long the run.
 */
class Indexed {
  constructor(
    readonly started: number,
    readonly startedLength: number,
    public finished = -1,
    public finishedLength = 0,
  ) {}
}

const CHUNK = 64 * 1024;

/**
 * The call journal of one run as an append-only file (`journal.ndjson`): a `started` line before a
 * call is submitted, a `finished` line with the result after. Lines are appended whole, one `write(2)`
 * at a time (a read-only call's line may wait and go out with the next: {@link record}), so a killed
 * process leaves at most a torn last line, which opening cuts. Memory holds an index (key → where its
 * lines are), never the entries: a call's entry and result are read back from the file when it is
 * replayed; the entries of a concluded story's calls are dropped ({@link release}).
 */
export class FileCallJournal implements CallJournal {
  readonly #file: string;
  readonly #entries = new Map<string, Indexed>();
  #fd: number | undefined;
  #reader: number | undefined;
  /** Bytes in the journal, where the next line starts (the file has them once the waiting lines are written). */
  #size = 0;
  /** Lines of {@link record} not written yet: they go out with the next line written or {@link flush}. */
  #waiting = "";

  constructor(file: string) {
    this.#file = file;
    if (existsSync(file)) this.#scan();
  }

  /** Builds the index from the file, a chunk at a time. */
  #scan(): void {
    const fd = openSync(this.#file, "r");
    let torn = 0;
    try {
      const buffer = Buffer.alloc(CHUNK);
      let carry = Buffer.alloc(0);
      let position = 0;
      let lineNo = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, CHUNK, position);
        if (read === 0) break;
        let data = Buffer.concat([carry, buffer.subarray(0, read)]);
        const base = position - carry.length;
        let start = 0;
        let end = data.indexOf(10, start);
        while (end >= 0) {
          lineNo++;
          this.#index(data.subarray(start, end), base + start, lineNo, false);
          start = end + 1;
          end = data.indexOf(10, start);
        }
        data = data.subarray(start);
        carry = Buffer.from(data);
        position += read;
      }
      this.#size = position;
      if (carry.length && carry.toString("utf8").trim()) {
        lineNo++;
        // A whole last line that only lacks its newline is kept (and completed); a torn one is cut.
        if (this.#index(carry, position - carry.length, lineNo, true)) {
          appendFileSync(this.#file, "\n");
          this.#size++;
        } else torn = carry.length;
      }
    } finally {
      closeSync(fd);
    }
    // A torn last line (a killed writer) was never acknowledged: cut it, so the next line starts clean.
    if (torn) {
      this.#size -= torn;
      truncateSync(this.#file, this.#size);
    }
  }

  /** Indexes one line; false when it is a torn last line. */
  #index(bytes: Buffer, offset: number, lineNo: number, last: boolean): boolean {
    const text = bytes.toString("utf8");
    if (!text.trim()) return true;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch (error) {
      // A crash can leave the last line half-written: it was never acknowledged.
      if (last) return false;
      throw new MeshflowError("internal", `${this.#file}:${lineNo}: not valid JSON: ${(error as Error).message}`);
    }
    this.#apply(line, { offset, length: bytes.length });
    return true;
  }

  #apply(line: Line, at: { offset: number; length: number }): void {
    if (line.state === "started") {
      this.#entries.set(line.key, new Indexed(at.offset, at.length));
      return;
    }
    const entry =
      this.#entries.get(line.key) ?? (line.tool !== undefined ? new Indexed(at.offset, at.length) : undefined);
    if (!entry) return;
    this.#entries.set(line.key, entry);
    entry.finished = at.offset;
    entry.finishedLength = at.length;
  }

  /** Adds a line: written at once (with the lines waiting before it), or left waiting when `wait`. */
  #append(line: Line, wait = false): void {
    const text = `${JSON.stringify(line)}\n`;
    if (wait) this.#waiting += text;
    else {
      this.#write(this.#waiting + text);
      this.#waiting = "";
    }
    const offset = this.#size;
    const length = Buffer.byteLength(text) - 1;
    this.#size = offset + length + 1;
    this.#apply(line, { offset, length });
  }

  #write(text: string): void {
    this.#fd ??= openOwnFileForAppend(this.#file);
    writeSync(this.#fd, text);
  }

  /** Writes the lines of {@link record} still waiting, in one `write(2)`. */
  flush(): void {
    if (!this.#waiting) return;
    this.#write(this.#waiting);
    this.#waiting = "";
  }

  /** The line at `offset`, read back from the file. */
  #line<S extends Line["state"]>(offset: number, length: number): Extract<Line, { state: S }> {
    this.flush();
    this.#reader ??= openSync(this.#file, "r");
    const bytes = Buffer.alloc(length);
    readSync(this.#reader, bytes, 0, length, offset);
    return JSON.parse(bytes.toString("utf8")) as Extract<Line, { state: S }>;
  }

  /** A key's entry, as its lines in the file say. */
  #entry(indexed: Indexed): JournalEntry {
    const first = this.#line<"started" | "finished">(indexed.started, indexed.startedLength);
    const entry: JournalEntry = {
      key: first.key,
      tool: first.tool ?? "",
      argsDigest: first.argsDigest ?? "",
      state: "started",
      startedAt: first.at,
    };
    if (indexed.finished < 0) return entry;
    const finished =
      indexed.finished === indexed.started
        ? (first as Extract<Line, { state: "finished" }>)
        : this.#line<"finished">(indexed.finished, indexed.finishedLength);
    return {
      ...entry,
      state: "finished",
      finishedAt: finished.at,
      durationMs: finished.durationMs,
      result: finished.result,
    };
  }

  async get(key: string): Promise<JournalEntry | undefined> {
    const indexed = this.#entries.get(key);
    return indexed ? this.#entry(indexed) : undefined;
  }

  async begin(start: JournalStart): Promise<void> {
    this.#append({ state: "started", ...start, at: eventTime() });
  }

  async finish(key: string, result: ToolResult, durationMs: number): Promise<void> {
    this.#append({ state: "finished", key, result, durationMs, at: eventTime() });
  }

  /** Drops the index entries of finished calls (an unfinished one stays, so `unfinished()` still reports it). */
  release(keys: readonly string[]): void {
    for (const key of keys) if ((this.#entries.get(key)?.finished ?? -1) >= 0) this.#entries.delete(key);
  }

  /**
   * Records a read-only or idempotent call in one line, which waits to be written with the next line
   * (a `begin` before a call with effects, a `finish`) or the run's next {@link flush}: the run store
   * flushes before it saves a snapshot, so no persisted state relies on a line still waiting. A crash
   * before then loses the line, and a resume runs that call again, as it may.
   */
  async record(start: JournalStart, result: ToolResult, durationMs: number): Promise<void> {
    this.#append({ state: "finished", ...start, result, durationMs, at: eventTime() }, true);
  }

  async unfinished(): Promise<JournalEntry[]> {
    const open: JournalEntry[] = [];
    for (const indexed of this.#entries.values()) if (indexed.finished < 0) open.push(this.#entry(indexed));
    return open;
  }

  async close(): Promise<void> {
    this.flush();
    for (const fd of [this.#fd, this.#reader]) if (fd !== undefined) closeSync(fd);
    this.#fd = this.#reader = undefined;
  }
}
