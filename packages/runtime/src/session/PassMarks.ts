import { relative } from "node:path";
import { type PrdSource, toMeshflowError } from "@meshflow/core";
import { PrdWriter } from "../internal/PrdWriter.js";
import type { RunHandle } from "../store/RunStore.js";

/**
 * The completion gate's `passes: true` marks of one run, written into its PRD (coalesced by the
 * {@link PrdWriter}). Only the gate marks stories, through this. A mark that cannot be written is a
 * warning (the story passed; its `story.finished` event says so and `flow resume` writes it again).
 */
export class PassMarks {
  readonly #writer: PrdWriter;
  /** The note every mark of the run adds (one string, however many stories pass). */
  readonly #note: string;

  constructor(prdFile: string, prdDir: string, handle: RunHandle, warnings: string[], source?: PrdSource | undefined) {
    this.#note = `Passed in meshflow run ${handle.runId} (evidence: ${relative(prdDir, handle.evidenceFile)}).`;
    this.#writer = new PrdWriter(prdFile, {
      source,
      onError: (error, marks) =>
        warnings.push(
          `${prdFile}: could not mark ${marks.map((m) => m.storyId).join(", ")} as passed: ${toMeshflowError(error).message}`,
        ),
    });
  }

  /** Marks a story passed, with a note naming the run and its evidence; `index`: its position in `userStories`. */
  mark(storyId: string, index?: number): void {
    this.#writer.mark(index === undefined ? { storyId, note: this.#note } : { storyId, index, note: this.#note });
  }

  /** Writes every queued mark now. */
  flush(): void {
    this.#writer.flush();
  }

  /** Writes what is queued and checks every mark made is in the file. */
  close(): void {
    this.#writer.close();
  }
}
