import { realpathSync, statSync } from "node:fs";
import { isMeshflowError, MeshflowError, pauseSync, type StoryEdit, writePrdStories } from "@meshflow/core";

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

/** How long every version of the PRD must hold every mark before the marks count as landed. */
const SETTLE_QUIET_MS = 250;
/** How long the marks are written again while saves keep dropping them, before they are given up on. */
const SETTLE_LIMIT_MS = 10_000;

/** What {@link settleMarks} found: the marks the PRD still lacks, those it wrote, and the last write's error. */
export type Settled = { missing: PassMark[]; marked: PassMark[]; error?: unknown };

/**
 * Makes sure every mark is in a PRD someone else has been saving: each new version of the file gets
 * the marks it lacks written again (on the newest text), until every version has held every mark for
 * `quietMs` — an editor that read the file before a write and saves after it (its buffer) drops that
 * write's marks a moment later. Gives up after `limitMs` of saves that keep dropping marks, or at once
 * when every missing mark's story is gone. `alwaysWatch: false`: done when the file held every mark
 * at the first look.
 */
export function settleMarks(
  file: string,
  marks: readonly PassMark[],
  { quietMs = SETTLE_QUIET_MS, limitMs = SETTLE_LIMIT_MS, alwaysWatch = true } = {},
): Settled {
  const start = performance.now();
  let since = start;
  /** The version last found holding every mark (inode, size, times: told apart without reading it). */
  let held: string | undefined;
  let error: unknown;
  const wrote = new Set<string>();
  const settled = (missing: PassMark[], failure?: unknown): Settled => ({
    missing,
    marked: marks.filter((m) => wrote.has(m.storyId) && !missing.includes(m)),
    ...(failure === undefined ? {} : { error: failure }),
  });
  for (let look = 0; marks.length; look++) {
    let missing: PassMark[] = [];
    let gone: PassMark[] = [];
    try {
      const s = statSync(realpathSync(file), { bigint: true });
      const stamp = `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      if (stamp !== held) {
        const written = writePrdStories(file, marks.map(markEdit));
        missing = marks.filter((m) => written.changed.includes(m.storyId) || written.gone.includes(m.storyId));
        gone = marks.filter((m) => written.gone.includes(m.storyId));
        for (const id of written.changed) wrote.add(id);
        held = missing.length ? undefined : stamp;
        if (written.changed.length) since = performance.now();
        error = undefined;
      }
    } catch (failure) {
      // Only a file that keeps changing is worth another look (a full disk, a folder it may not write is not).
      if (!isMeshflowError(failure) || failure.code !== "prd_changed") return settled([...marks], failure);
      error = failure;
      missing = [...marks];
    }
    const now = performance.now();
    if (!missing.length && (now - since >= quietMs || (look === 0 && !alwaysWatch))) break;
    if (gone.length && gone.length === missing.length)
      return settled(
        missing,
        new MeshflowError(
          "prd_changed",
          `${file}: ${gone.map((m) => `"${m.storyId}"`).join(", ")} no longer in userStories; not marked passed`,
          { details: { stories: gone.map((m) => m.storyId) } },
        ),
      );
    if (now - start >= limitMs) return settled(missing, missing.length ? error : undefined);
    // Soon after a save, at an uneven pace so the looks do not fall into step with an editor's saves.
    pauseSync(1 + Math.floor(Math.random() * 4));
  }
  return settled([]);
}
