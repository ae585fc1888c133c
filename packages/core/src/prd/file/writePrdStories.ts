import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { removeStaleTempFiles } from "../../fs/writeFileAtomic.js";
import { jsoncParser } from "../../json/jsoncParser.js";
import { pauseSync } from "../../process/pauseSync.js";
import type { PrdSource } from "./readPrd.js";
import { readVersion, replacePrd } from "./replacePrd.js";
import { storySpans } from "./storySpans.js";
import { type StoryEdit, setStoryFields } from "./storyText.js";

/** What this process's last read or write of a PRD left in the file: the next write's stories are there while it still is. */
export type PrdWriteCache = { [K in keyof PrdSource]?: PrdSource[K] | undefined };

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

/**
 * Sets `passes` and `notes` of stories in a PRD file: the only write meshflow makes to a PRD (the
 * completion gate's marks, `flow mark`, `flow reset`). Every other byte stays (key order, unknown
 * fields, comments, indentation, line ends); an absent field is added after the story's last member,
 * written as its first member is (see `setStoryFields`). The file is read once; its stories are where
 * `cache` says while the file is still what it describes, else where jsonc-parser's scanner finds them;
 * each story is found by its index, else by its id. The result replaces the file atomically (same
 * mode, through a symlink to its target, dead writers' temp files removed) only while the file is
 * still the version read, checked right before the rename; otherwise it starts over on the new
 * content, so an edit saved meanwhile is kept (a save in place the rename displaced is edited again,
 * see {@link replacePrd}). Throws `prd_changed` when the file kept changing or is not one whole JSON
 * document (being saved).
 */
export function writePrdStories(file: string, edits: readonly StoryEdit[], cache: PrdWriteCache = {}): StoriesWritten {
  const merged = mergeEdits(edits);
  if (!merged.length) return { changed: [], gone: [], foreign: false };
  const target = realpathSync(file);
  removeStaleTempFiles(target);
  const changed = new Set<string>();
  /** A save our last rename displaced, and the digest of what that rename left. */
  let displaced: { text: string; over: string } | undefined;
  let foreign = false;
  let failure: unknown;
  // A displaced save is always written back, even after the attempts ran out.
  for (let attempt = 1; attempt <= ATTEMPTS || (displaced && attempt <= 4 * ATTEMPTS); attempt++) {
    try {
      const { bytes: read, ...version } = readVersion(target);
      const redo = displaced?.over === version.digest ? displaced : undefined;
      displaced = undefined;
      foreign ||= attempt > 1 || redo !== undefined || (cache.digest ?? version.digest) !== version.digest;
      const bytes = redo ? Buffer.from(redo.text, "utf8") : read;
      const spans = !redo && cache.digest === version.digest && cache.spans ? cache.spans : storySpans(bytes);
      if (!spans) throw new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
      const edited = editStories(bytes, spans, merged);
      for (const id of edited.changed) changed.add(id);
      if (!edited.changed.length && !redo) {
        Object.assign(cache, { digest: version.digest, spans });
        return { changed: [...changed], gone: edited.gone, foreign };
      }
      const replacement = replacePrd(target, (write) => edited.pieces.forEach(write), version);
      Object.assign(cache, replacement.kind === "changed" ? { digest: undefined } : edited.left);
      if (replacement.kind === "replaced") return { changed: [...changed], gone: edited.gone, foreign };
      if (replacement.kind === "displaced") displaced = { text: replacement.text, over: edited.left.digest };
      const ids = merged.map((e) => e.storyId);
      failure = new MeshflowError(
        "prd_changed",
        `${file}: changed by someone else during each of ${ATTEMPTS} attempts to write ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}; not written`,
      );
    } catch (error) {
      failure = error;
    }
    if (!displaced && attempt < ATTEMPTS) pauseSync(5 * attempt);
  }
  throw failure;
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

/**
 * The PRD's bytes with the edits made to the stories at `spans`: the pieces to write (the unchanged
 * bytes are not copied), the stories changed and gone, and the digest and spans of the result.
 */
function editStories(bytes: Buffer, spans: readonly number[], edits: readonly StoryEdit[]) {
  const stories = spans.length / 2;
  const edited = new Map<number, string>();
  const story = (i: number) => edited.get(i) ?? bytes.toString("utf8", spans[2 * i], spans[2 * i + 1]);
  const apply = (i: number, edit: StoryEdit) => (i >= 0 && i < stories ? setStoryFields(story(i), edit) : undefined);
  let byId: Map<string, number> | undefined;
  const changed: string[] = [];
  const gone: string[] = [];
  for (const edit of edits) {
    let index = edit.index ?? -1;
    let text = apply(index, edit);
    if (text === undefined && edit.storyId) {
      byId ??= idsOf(story, stories);
      index = byId.get(edit.storyId) ?? -1;
      text = apply(index, edit);
    }
    if (text === undefined) gone.push(edit.storyId);
    else if (text !== story(index)) {
      edited.set(index, text);
      changed.push(edit.storyId);
    }
  }
  const pieces: Buffer[] = [];
  const moved: number[] = [];
  const hash = createHash("sha256");
  let [copied, shift] = [0, 0];
  for (let i = 0; i < stories; i++) {
    const [start, end] = [spans[2 * i] ?? 0, spans[2 * i + 1] ?? 0];
    const text = edited.get(i);
    moved.push(start + shift);
    if (text !== undefined) {
      const replaced = Buffer.from(text, "utf8");
      pieces.push(bytes.subarray(copied, start), replaced);
      shift += replaced.length - (end - start);
      copied = end;
    }
    moved.push(end + shift);
  }
  pieces.push(bytes.subarray(copied));
  for (const piece of pieces) hash.update(piece);
  return { pieces, changed, gone, left: { digest: hash.digest("hex"), spans: moved } };
}

/** Each story's index by its id (the first of a repeated id), for edits not found at their index. */
function idsOf(story: (i: number) => string, stories: number): Map<string, number> {
  const { parse } = jsoncParser();
  const ids = new Map<string, number>();
  for (let i = stories - 1; i >= 0; i--) {
    const id = (parse(story(i), [], { allowTrailingComma: true }) as { id?: unknown } | undefined)?.id;
    if (typeof id === "string") ids.set(id, i);
  }
  return ids;
}
