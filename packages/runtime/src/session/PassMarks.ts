import { relative } from "node:path";
import { type PrdSource, toMeshflowError } from "@meshflow/core";
import { PrdWriter } from "../internal/PrdWriter.js";
import type { RunHandle } from "../store/RunStore.js";

/** Passed stories of a run whose marks the PRD did not hold when the run ended: `flow mark <runId>` writes them. */
export interface Unmarked {
  /** The PRD file. */
  prd: string;
  /** The stories' ids, in the order they passed. */
  stories: string[];
  /** Why they are missing (a story removed, a file that kept changing). */
  reason: string;
}

/** The note a run's marks add to each story's `notes`: it names the run and its evidence. */
export function passNote(runId: string, prdDir: string, evidenceFile: string): string {
  return `Passed in meshflow run ${runId} (evidence: ${relative(prdDir, evidenceFile)}).`;
}

/**
 * The completion gate's `passes: true` marks of one run, written into its PRD (coalesced by the
 * {@link PrdWriter}). Only the gate marks stories, through this. A mark that cannot be written does
 * not change the story's outcome (its `story.finished` event says it passed): the run's end reports
 * it, and `flow mark` writes it from the run's events.
 */
export class PassMarks {
  readonly #writer: PrdWriter;
  readonly #prdFile: string;
  /** The note every mark of the run adds (one string, however many stories pass). */
  readonly #note: string;

  constructor(prdFile: string, prdDir: string, handle: RunHandle, source?: PrdSource | undefined) {
    this.#prdFile = prdFile;
    this.#note = passNote(handle.runId, prdDir, handle.evidenceFile);
    this.#writer = new PrdWriter(prdFile, { source });
  }

  /** Marks a story passed, with a note naming the run and its evidence; `index`: its position in `userStories`. */
  mark(storyId: string, index?: number): void {
    this.#writer.mark(index === undefined ? { storyId, note: this.#note } : { storyId, index, note: this.#note });
  }

  /** Writes every queued mark now. */
  flush(): void {
    this.#writer.flush();
  }

  /** Writes what is queued and checks every mark made is in the file; the stories it lacks, if any. */
  close(): Unmarked | undefined {
    const { missing, error } = this.#writer.close();
    if (!missing.length) return undefined;
    return {
      prd: this.#prdFile,
      stories: missing.map((m) => m.storyId),
      reason: error
        ? toMeshflowError(error).message
        : `${this.#prdFile} kept changing: saves made from text read before the marks landed dropped them`,
    };
  }
}
