import { relative } from "node:path";
import { toMeshflowError } from "@meshflow/core";
import { PrdWriter } from "../internal/PrdWriter.js";
import type { RunHandle } from "../store/RunStore.js";

/**
 * The completion gate's `passes: true` marks of one run, written into its PRD (coalesced by the
 * {@link PrdWriter}). Only the gate marks stories, through this. A mark that cannot be written is a
 * warning (the story passed; its `story.finished` event says so and `flow resume` writes it again).
 */
export class PassMarks {
  readonly #handle: RunHandle;
  readonly #prdDir: string;
  readonly #writer: PrdWriter;

  constructor(prdFile: string, prdDir: string, handle: RunHandle, warnings: string[]) {
    this.#handle = handle;
    this.#prdDir = prdDir;
    this.#writer = new PrdWriter(prdFile, {
      onError: (error, marks) =>
        warnings.push(
          `${prdFile}: could not mark ${marks.map((m) => m.storyId).join(", ")} as passed: ${toMeshflowError(error).message}`,
        ),
    });
  }

  /** Marks a story passed, with a note naming the run and its evidence. */
  mark(storyId: string): void {
    const h = this.#handle;
    this.#writer.mark({
      storyId,
      note: `Passed in meshflow run ${h.runId} (evidence: ${relative(this.#prdDir, h.evidenceFile)}).`,
    });
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
