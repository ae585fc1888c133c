import type { PrdSource } from "@meshflow/core";
import { type Settled, settleMarks } from "../gate/settleMarks.js";
import { type PassMark, unchangedSince, type WriteBackCache, writeStoriesPassed } from "../gate/writeStoryPassed.js";

/**
 * Writes the completion gate's `passes: true` marks into the PRD, coalescing marks that arrive
 * within `intervalMs` of the last write into one atomic rewrite (a big PRD passing many quick stories
 * would otherwise be rewritten once per story). The interval also grows with the cost of a write (at
 * least {@link WRITE_COST_FACTOR} times the last write's duration), so rewriting a PRD of any size
 * takes a bounded share of the run and its memory does not grow with the file. A mark not yet
 * written is not lost: the story's `story.finished` event is already in the run's events, and the
 * run's end (or `flow mark`) writes it.
 */
/** Between two writes, at least this many times the duration of the last one (write-back ≤ 1/50 of a run). */
export const WRITE_COST_FACTOR = 50;

export class PrdWriter {
  readonly #file: string;
  readonly #intervalMs: number;
  #pending: PassMark[] = [];
  /** Every mark written (or tried) so far: {@link close} checks they are all in the file. */
  readonly #written: PassMark[] = [];
  /**
   * A write gave up, or found the file written by someone else (an editor's save may have dropped an
   * earlier mark): some marks may be missing from the file whatever it looks like now.
   */
  #unsure = false;
  #last = Number.NEGATIVE_INFINITY;
  /** How long the last write took (ms). */
  #cost = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #cache: WriteBackCache;

  /**
   * `source`: the file's bytes as the run's preflight read them; while the file stays so, marks with
   * an index are written in a stream (the writer keeps `source` current as it writes).
   */
  constructor(
    file: string,
    options: {
      intervalMs?: number;
      source?: PrdSource | undefined;
    } = {},
  ) {
    this.#file = file;
    this.#cache = options.source ? { digest: options.source.digest, source: options.source } : {};
    this.#intervalMs = options.intervalMs ?? 500;
  }

  /** Queues a mark; writes at once when the last write is older than the interval. */
  mark(mark: PassMark): void {
    this.#pending.push(mark);
    const wait = this.#last + Math.max(this.#intervalMs, WRITE_COST_FACTOR * this.#cost) - performance.now();
    if (wait <= 0) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Writes every queued mark now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const marks = this.#pending;
    this.#pending = [];
    if (!marks.length) return;
    const start = performance.now();
    try {
      if (writeStoriesPassed(this.#file, marks, this.#cache).foreign) this.#unsure = true;
      this.#written.push(...marks);
    } catch {
      // Written again when the writer closes; reported only if they are still missing then.
      this.#unsure = true;
      this.#written.push(...marks);
    } finally {
      this.#last = performance.now();
      this.#cost = this.#last - start;
    }
  }

  /**
   * Writes every queued mark, then makes sure every mark of the writer is in the file: when a write
   * gave up because the file kept changing, or someone else wrote the file during the run (an editor
   * that saves a copy read before a mark landed drops it: the write-back keeps the editor's save,
   * never overwrites it), the marks missing are written again on the newest text and the file is
   * watched until they stay (see {@link settleMarks}). When only this writer wrote the file and every
   * write landed, nothing needs reading again. Returns the marks the file still lacks (none when
   * every mark landed) and why.
   */
  close(): Settled {
    this.flush();
    const written = this.#written.splice(0);
    // Only this process wrote the file, every write landed and the file is still what the last one
    // left: every mark is in it.
    if (!written.length || (!this.#unsure && unchangedSince(this.#file, this.#cache))) return { missing: [] };
    delete this.#cache.digest;
    return settleMarks(this.#file, written);
  }
}
