import { dirname } from "node:path";
import { toMeshflowError } from "@meshflow/core";
import { type PassMark, settleMarks } from "./gate/settleMarks.js";
import { passNote } from "./session/PassMarks.js";
import type { RunStore } from "./store/RunStore.js";

/** What {@link markRun} did. */
export interface MarkResult {
  runId: string;
  /** The PRD the run worked on. */
  prd: string;
  /** The stories the run passed, in the order they passed. */
  passed: string[];
  /** Of those, the ones whose mark this wrote (the others were marked already). */
  marked: string[];
  /** Of those, the ones the PRD still lacks (a story removed, a file that kept changing). */
  unmarked: string[];
  /** Why `unmarked` are missing. */
  reason?: string;
}

/**
 * Writes the `passes: true` marks of every story a finished (or interrupted) run passed into its PRD,
 * from the run's events — `flow mark`. Each story gets the note the run's own write-back gives it, so
 * a mark already there is left alone; the marks are written on the newest text and checked until they
 * stay, as at a run's end (see {@link settleMarks}). Takes the run's and the PRD's locks meanwhile
 * (`run_locked` while the run runs, `prd_busy` while another run of the PRD does), and records in the
 * run which marks are still missing (none: the run's `unmarked` is cleared).
 */
export async function markRun(store: RunStore, runId: string): Promise<MarkResult> {
  const handle = await store.open(runId);
  try {
    const { prd } = handle.record();
    const passed = [
      ...new Set(
        (await handle.events()).flatMap((e) =>
          e.type === "story.finished" && e.status === "passed" ? [e.storyId] : [],
        ),
      ),
    ];
    const note = passNote(runId, dirname(prd), handle.evidenceFile);
    const marks: PassMark[] = passed.map((storyId) => ({ storyId, note }));
    // Watched until they stay only when some were missing.
    const { missing, marked, error } = settleMarks(prd, marks, { alwaysWatch: false });
    const unmarked = missing.map((m) => m.storyId);
    handle.updateRecord({ unmarked: unmarked.length ? unmarked : undefined });
    return {
      runId,
      prd,
      passed,
      marked: marked.map((m) => m.storyId),
      unmarked,
      ...(unmarked.length
        ? { reason: error ? toMeshflowError(error).message : `${prd} kept changing: saves kept dropping the marks` }
        : {}),
    };
  } finally {
    await handle.close();
  }
}
