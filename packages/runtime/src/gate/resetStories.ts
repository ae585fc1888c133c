import { didYouMean, MeshflowError, readPrdSync, type StoryEdit, writePrdStories } from "@meshflow/core";
import { lockPrd } from "../store/lockPrd.js";

/** What {@link resetStories} did. */
export interface ResetResult {
  /** Stories set back to `passes: false` with empty `notes` (ids, file order; "" for a story without one). */
  reset: string[];
  /** Whether the file changed (a story already reset is left as it is). */
  changed: boolean;
}

/**
 * Sets `passes: false` and clears `notes` of the chosen stories of a PRD (all when `storyIds` is
 * undefined) — `flow reset`. Holds the PRD's lock meanwhile, so it refuses (`prd_busy`) while a run
 * of the PRD is live. Writes as the completion gate's write-back does (`writePrdStories`: only those
 * values change, the file is replaced atomically only while it is still the version read, an edit
 * saved meanwhile is kept). Throws `usage` naming a story id the PRD does not have, `prd_invalid` for
 * a file that is not a PRD with a `userStories` array, `prd_changed` when the file kept changing.
 */
export function resetStories(file: string, storyIds: readonly string[] | undefined, storeRoot: string): ResetResult {
  const release = lockPrd(file, `reset-${process.pid}`, storeRoot);
  try {
    const ids: string[] = [];
    const read = readPrdSync(file, {
      onStory: (value) => {
        const id = (value as { id?: unknown } | null)?.id;
        ids.push(typeof id === "string" ? id : "");
      },
    });
    if (read.problems.length || !Array.isArray((read.head as { userStories?: unknown } | undefined)?.userStories))
      throw new MeshflowError("prd_invalid", `${file}: not a PRD with a userStories array (run flow validate)`);
    for (const id of storyIds ?? [])
      if (!ids.includes(id))
        throw new MeshflowError(
          "usage",
          `${file}: no story "${id}" in userStories${ids.length <= 10 ? ` (stories: ${ids.join(", ")})` : didYouMean(id, ids)}`,
        );
    const edits: StoryEdit[] = ids.flatMap((storyId, index) =>
      !storyIds || storyIds.includes(storyId) ? [{ storyId, index, passes: false, notes: () => "" }] : [],
    );
    return { reset: edits.map((e) => e.storyId), changed: writePrdStories(file, edits).changed.length > 0 };
  } finally {
    release();
  }
}
