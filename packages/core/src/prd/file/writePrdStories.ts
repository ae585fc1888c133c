import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { removeStaleTempFiles } from "../../fs/writeFileAtomic.js";
import { copyEdited, type Located } from "./copyEdited.js";
import { editWhole } from "./editWhole.js";
import { readPrdSync } from "./readPrd.js";
import { type Replacement, readVersion, replacePrd } from "./replacePrd.js";
import type { StoryEdit } from "./storyText.js";

/**
 * What this process's last read or write of a PRD left in the file (its sha256, and where each story
 * is: see `PrdSource`), so the next write edits the stories' bytes in a stream while the file is still
 * that. The text itself is not kept: it would stay in memory for a whole run.
 */
export interface PrdWriteCache {
  digest?: string | undefined;
  spans?: number[] | undefined;
}

/** What {@link writePrdStories} did. */
export interface StoriesWritten {
  /** Ids of the stories whose fields changed. */
  changed: string[];
  /** Ids of the edits whose story is not in `userStories` (nothing written for them). */
  gone: string[];
  /** Someone else wrote the file since this process last read or wrote it (or during this write). */
  foreign: boolean;
}

/** Attempts before a PRD that keeps changing under a write is given up on (with an error). */
const ATTEMPTS = 8;

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Sets `passes` and `notes` of stories in a PRD file: the only write meshflow makes to a PRD (the
 * completion gate's marks, `flow mark`, `flow reset`). Every other byte stays (key order, unknown
 * fields, indentation, line ends); an absent field is added after the story's last member, written as
 * its first member is. While the file is still what `cache` describes, only the stories' bytes are read
 * and edited and the rest is copied a chunk at a time (see {@link copyEdited}); otherwise the file is
 * read once and split, and a file that cannot be split or edited so (comments, trailing commas, `notes`
 * no string, a story without an id) gets jsonc-parser's edits ({@link editWhole}). The result replaces
 * the file atomically (same mode, through a symlink to its target, dead writers' temp files removed)
 * only while the file is still the version read, checked right before the rename; otherwise it starts
 * over on the new content, so an edit saved meanwhile is kept. A save in place that the rename
 * displaced (see `replacePrd`) is put back at once and edited on the next attempt. Throws
 * `prd_changed` when the file kept changing or is not one whole JSON document (being saved).
 */
export function writePrdStories(file: string, edits: readonly StoryEdit[], cache: PrdWriteCache = {}): StoriesWritten {
  const merged = mergeEdits(edits);
  if (!merged.length) return { changed: [], gone: [], foreign: false };
  const target = realpathSync(file);
  removeStaleTempFiles(target);
  const changed = new Set<string>();
  let foreign = false;
  let failure: unknown;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const before = cache.digest;
      const cached = fromCache(merged, cache);
      let step = cached && copyEdited(target, cached);
      if (!step || step.replacement.kind === "changed") {
        const found = fromFile(target, merged);
        step = (found && copyEdited(target, found)) ?? editWhole(target, file, merged);
      }
      cache.digest = step.left?.digest;
      cache.spans = step.left?.spans;
      for (const id of step.changed) changed.add(id);
      foreign ||= attempt > 1 || (before !== undefined && before !== step.read);
      const { replacement } = step;
      if (replacement.kind === "replaced" || replacement.kind === "unchanged")
        return { changed: [...changed], gone: step.gone, foreign };
      if (replacement.kind === "displaced") putBack(target, replacement.text, cache);
      const ids = merged.map((e) => e.storyId);
      failure = new MeshflowError(
        "prd_changed",
        `${file}: changed by someone else during each of ${ATTEMPTS} attempts to write ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}; not written`,
      );
    } catch (error) {
      failure = error;
    }
    if (attempt < ATTEMPTS) pause(5 * attempt);
  }
  throw failure;
}

/**
 * Puts a save in place that our rename displaced back in the file, while the file is still what the
 * rename left (`cache`): a later save is newer and stays. A save displaced by this rename in turn is
 * put back too. The cache is cleared: the file is no longer what this process wrote.
 */
function putBack(target: string, text: string, cache: PrdWriteCache): void {
  let left = cache.digest;
  cache.digest = cache.spans = undefined;
  for (let save: Replacement = { kind: "displaced", text }; save.kind === "displaced"; ) {
    const now = readVersion(target);
    if (now.digest !== left) return;
    left = createHash("sha256").update(save.text).digest("hex");
    save = replacePrd(target, save.text, now);
  }
}

/** One edit per story: a story edited twice in one write gets both notes, and the last `passes`. */
function mergeEdits(edits: readonly StoryEdit[]): StoryEdit[] {
  const byStory = new Map<string, StoryEdit>();
  for (const edit of edits) {
    const key = edit.storyId || `\u0000${edit.index}`;
    const earlier = byStory.get(key);
    byStory.set(key, earlier ? { ...earlier, passes: edit.passes, notes: (n) => edit.notes(earlier.notes(n)) } : edit);
  }
  return [...byStory.values()];
}

/** The stories where the cache says, each edit at its own index (checked by {@link copyEdited} to still be its story). */
function fromCache(edits: readonly StoryEdit[], { digest, spans }: PrdWriteCache): Located | undefined {
  const located = edits.flatMap((edit) => (edit.index === undefined ? [] : [{ ...edit, index: edit.index }]));
  const indexes = new Set(located.map((e) => e.index));
  if (
    !digest ||
    !spans ||
    indexes.size < edits.length ||
    located.some((e) => e.index < 0 || 2 * e.index + 1 >= spans.length)
  )
    return undefined;
  return { digest, spans, edits: located, gone: [] };
}

/**
 * The stories found in the file as it is now, split (see `readPrdSync`): undefined when it cannot be
 * split (not strict JSON shaped like a PRD) or an edit has no id to find its story by.
 */
function fromFile(target: string, edits: readonly StoryEdit[]): Located | undefined {
  if (!edits.every((e) => e.storyId)) return undefined;
  const wanted = new Map(edits.map((e) => [e.storyId, e]));
  const found: Located["edits"] = [];
  const { source } = readPrdSync(target, {
    whole: false,
    source: true,
    onStory: (value, index) => {
      const edit = wanted.get((value as { id?: unknown } | null)?.id as string);
      if (edit && wanted.delete(edit.storyId)) found.push({ ...edit, index });
    },
  });
  return source && { ...source, edits: found, gone: [...wanted.keys()] };
}
