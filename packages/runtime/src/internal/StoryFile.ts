import { closeSync, mkdtempSync, openSync, readSync, rmdirSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MeshflowError, type Story } from "@meshflow/core";

/** Stories written to the file in one `write(2)` once this many bytes are waiting. */
const BATCH_BYTES = 256 * 1024;
/** Stories kept parsed (the ones a run is working on, looked up many times per step). */
const KEEP = 32;
/** Bytes read at once: the story asked for and the ones after it, which a run usually asks for next. */
const READ_AHEAD = 64 * 1024;

/**
 * A run's validated stories, one JSON line each in a private temporary file, read back one at a time:
 * a PRD of any size costs the run a few numbers per story in memory, not the story. The file is
 * removed from its folder as soon as it is open (it lives as long as the descriptor; nothing is left
 * behind by a killed process) and its content is only ever what the preflight validated.
 */
export class StoryFile {
  #fd: number | undefined;
  /** Where the file still has a name (a system that cannot remove an open file): removed at close. */
  #path: string | undefined;
  /** Byte offset of each story's line; the entry after the last is the end. */
  readonly #starts: number[] = [0];
  #waiting: string[] = [];
  #waitingBytes = 0;
  readonly #kept = new Map<number, Story>();
  /** The bytes last read from the file, and the offset they start at. */
  #window: { start: number; bytes: Buffer } | undefined;

  constructor(dir = tmpdir()) {
    const folder = mkdtempSync(join(dir, "meshflow-stories-"));
    const path = join(folder, "stories.ndjson");
    this.#fd = openSync(path, "w+", 0o600);
    try {
      unlinkSync(path);
      rmdirSync(folder);
    } catch {
      this.#path = folder;
    }
  }

  /** Adds a story; returns its position for {@link read}. */
  append(story: Story): number {
    const line = `${JSON.stringify(story)}\n`;
    const bytes = Buffer.byteLength(line);
    const position = this.#starts.length - 1;
    this.#starts.push((this.#starts[position] ?? 0) + bytes);
    this.#waiting.push(line);
    this.#waitingBytes += bytes;
    if (this.#waitingBytes >= BATCH_BYTES) this.#write();
    return position;
  }

  /** The story at `position`, parsed from its line (the most recently read ones are kept). */
  read(position: number): Story {
    const kept = this.#kept.get(position);
    if (kept) {
      this.#kept.delete(position);
      this.#kept.set(position, kept);
      return kept;
    }
    const start = this.#starts[position];
    const end = this.#starts[position + 1];
    if (start === undefined || end === undefined)
      throw new MeshflowError("internal", `no story at position ${position} of the run's story file`);
    this.#write();
    const story = JSON.parse(this.#bytes(start, end - 1).toString("utf8")) as Story;
    this.#kept.set(position, story);
    if (this.#kept.size > KEEP) this.#kept.delete(this.#kept.keys().next().value as number);
    return story;
  }

  /** The file's bytes from `start` to `end`, read ahead in blocks of {@link READ_AHEAD}. */
  #bytes(start: number, end: number): Buffer {
    let window = this.#window;
    if (!window || start < window.start || end > window.start + window.bytes.length) {
      const buffer = Buffer.allocUnsafe(Math.max(READ_AHEAD, end - start));
      const read = readSync(this.#descriptor(), buffer, 0, buffer.length, start);
      window = { start, bytes: buffer.subarray(0, read) };
      this.#window = window;
    }
    return window.bytes.subarray(start - window.start, end - window.start);
  }

  /** Closes and removes the file. */
  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#kept.clear();
    this.#window = undefined;
    if (this.#path) rmSync(this.#path, { recursive: true, force: true });
    this.#path = undefined;
  }

  #write(): void {
    if (!this.#waiting.length) return;
    // What is read ahead may end where the stories written now begin.
    this.#window = undefined;
    writeSync(this.#descriptor(), this.#waiting.join(""), (this.#starts.at(-1) ?? 0) - this.#waitingBytes);
    this.#waiting = [];
    this.#waitingBytes = 0;
  }

  #descriptor(): number {
    if (this.#fd === undefined) throw new MeshflowError("internal", "the run's story file is closed");
    return this.#fd;
  }
}
