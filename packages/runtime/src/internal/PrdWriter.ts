import { type PrdSource, type PrdWriteCache, prdDigest, writePrdStories } from "@meshflow/core";
import { markEdit, type PassMark, type Settled, settleMarks } from "../gate/settleMarks.js";

/** Between two writes, at least this many times the duration of the last one (write-back ≤ 1/50 of a run). */
const WRITE_COST_FACTOR = 50;

/**
 * Writes the completion gate's `passes: true` marks into the PRD, coalescing marks that arrive
 * within `intervalMs` of the last write (or {@link WRITE_COST_FACTOR} times its duration, for big
 * PRDs) into one atomic rewrite. A mark not yet written is not lost: the story's `story.finished`
 * event is already in the run's events, and the run's end (or `flow mark`) writes it.
 */
export class PrdWriter {
  readonly #file: string;
  readonly #intervalMs: number;
  #pending: PassMark[] = [];
  /** Every mark written (or tried) so far: {@link close} checks they are all in the file. */
  readonly #written: PassMark[] = [];
  /** A write gave up, or found the file written by someone else: some marks may be missing from it. */
  #unsure = false;
  #last = Number.NEGATIVE_INFINITY;
  /** How long the last write took (ms). */
  #cost = 0;
  #timer: NodeJS.Timeout | undefined;
  /** What the preflight read and each write left: while the file stays so, marks are written in a stream. */
  readonly #cache: PrdWriteCache;

  /** `source`: the file's bytes as the run's preflight read them. */
  constructor(file: string, options: { intervalMs?: number; source?: PrdSource | undefined } = {}) {
    this.#file = file;
    this.#cache = { ...options.source };
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
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const marks = this.#pending.splice(0);
    if (!marks.length) return;
    const start = performance.now();
    this.#written.push(...marks);
    try {
      const { foreign, gone } = writePrdStories(this.#file, marks.map(markEdit), this.#cache);
      // A mark whose story is gone is reported when the writer closes.
      if (foreign || gone.length) this.#unsure = true;
    } catch {
      // Written again when the writer closes; reported only if they are still missing then.
      this.#unsure = true;
    }
    this.#last = performance.now();
    this.#cost = this.#last - start;
  }

  /**
   * Writes every queued mark, then, unless only this writer wrote the file and it is still what the
   * last write left, makes sure every mark is in it (see {@link settleMarks}): an editor that saved a
   * copy read before a mark landed dropped it. Returns the marks the file still lacks, and why.
   */
  close(): Omit<Settled, "marked"> {
    this.flush();
    const written = this.#written.splice(0);
    if (!written.length || (!this.#unsure && this.#unchanged())) return { missing: [] };
    const { missing, error } = settleMarks(this.#file, written);
    return error === undefined ? { missing } : { missing, error };
  }

  /** True when the file is still what the last write left (nobody changed it since). */
  #unchanged(): boolean {
    try {
      return this.#cache.digest !== undefined && prdDigest(this.#file) === this.#cache.digest;
    } catch {
      return false;
    }
  }
}
