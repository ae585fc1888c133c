import { MeshflowError, type PrdWriteCache, type StoryEdit, writePrdStories } from "@meshflow/core";

/** One story to mark as passed, with the note to append to its `notes`. */
export interface PassMark {
  storyId: string;
  /** Its position in `userStories`, when known: the write-back looks there first. */
  index?: number;
  note: string;
}

/** The edit of a mark: `passes: true`, and its note joined to the story's notes (a space between) unless there. */
export const markEdit = ({ note, ...mark }: PassMark): StoryEdit => ({
  ...mark,
  passes: true,
  notes: (notes) => (notes.includes(note) ? notes : notes.trim() ? `${notes.trimEnd()} ${note}` : note),
});

/**
 * Marks stories as passed in the PRD file (`passes: true`, the note appended to `notes`) through
 * `writePrdStories`: the completion gate, `flow mark` and `flow enqueue --wait` do. Idempotent.
 * `cache`: what the run's preflight read and its last write left. Throws `prd_changed` when a story is
 * gone (the others are marked) or the file kept changing.
 */
export function writeStoriesPassed(
  file: string,
  marks: readonly PassMark[],
  cache?: PrdWriteCache,
): { changed: number; foreign: boolean } {
  // A story marked twice is edited once (see writePrdStories), its note added once.
  const { changed, gone, foreign } = writePrdStories(file, marks.map(markEdit), cache);
  if (gone.length)
    throw new MeshflowError(
      "prd_changed",
      `${file}: ${gone.map((id) => `story "${id}"`).join(", ")} is no longer in userStories; not marked passed`,
      { details: { stories: gone } },
    );
  return { changed: changed.length, foreign };
}
