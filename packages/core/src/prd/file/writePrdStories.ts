import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { removeStaleTempFiles } from "../../fs/writeFileAtomic.js";
import { jsoncParser } from "../../json/jsoncParser.js";
import { copyEdited, type Edited, editedBytes, type Located } from "./copyEdited.js";
import { readPrdSync } from "./readPrd.js";
import { type PrdVersion, readVersion, replacePrd, wholeJson } from "./replacePrd.js";
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

/** A save our last rename displaced, and the digest of what that rename left. */
type Redo = { text: string; over: string };

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Sets `passes` and `notes` of stories in a PRD file: the only write meshflow makes to a PRD (the
 * completion gate's marks, `flow mark`, `flow reset`). Every other byte stays (key order, unknown
 * fields, indentation, line ends); an absent field is added after the story's last member, written as
 * its first member is. While the file is still what `cache` describes, only the stories' bytes are read
 * and edited and the rest is copied a chunk at a time (constant memory); otherwise the file is read
 * once and split, and a file that cannot be split or edited so (comments, trailing commas, `notes` no
 * string, a story without an id) gets jsonc-parser's edits. The result replaces the file atomically
 * (same mode, through a symlink to its target, dead writers' temp files removed) only while the file is
 * still the version read, checked right before the rename; otherwise it starts over on the new content,
 * so an edit saved meanwhile is kept (a save in place the rename displaced is edited again, see
 * {@link replacePrd}). Throws `prd_changed` when the file kept changing or is not one whole JSON
 * document (being saved).
 */
export function writePrdStories(file: string, edits: readonly StoryEdit[], cache: PrdWriteCache = {}): StoriesWritten {
  const merged = mergeEdits(edits);
  if (!merged.length) return { changed: [], gone: [], foreign: false };
  const target = realpathSync(file);
  removeStaleTempFiles(target);
  const changed = new Set<string>();
  let displaced: Redo | undefined;
  let foreign = false;
  let failure: unknown;
  // A displaced save is always written back, even after the attempts ran out.
  for (let attempt = 1; attempt <= ATTEMPTS || (displaced && attempt <= 4 * ATTEMPTS); attempt++) {
    const redo = displaced;
    displaced = undefined;
    try {
      const before = cache.digest;
      const cached = redo ? undefined : fromCache(target, merged, cache);
      let step = cached && copyEdited(target, cached);
      if (!step || step.replacement.kind === "changed") step = fromFile(target, file, merged, redo);
      cache.digest = step.left?.digest;
      cache.spans = step.left?.spans;
      for (const id of step.changed) changed.add(id);
      foreign ||= attempt > 1 || step.redone === true || (before !== undefined && before !== step.read);
      const { replacement } = step;
      if (replacement.kind === "replaced" || replacement.kind === "unchanged")
        return { changed: [...changed], gone: step.gone, foreign };
      if (replacement.kind === "displaced" && cache.digest) displaced = { text: replacement.text, over: cache.digest };
      const ids = merged.map((e) => e.storyId);
      failure = new MeshflowError(
        "prd_changed",
        `${file}: changed by someone else during each of ${ATTEMPTS} attempts to write ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}; not written`,
      );
    } catch (error) {
      failure = error;
    }
    if (!displaced && attempt < ATTEMPTS) pause(5 * attempt);
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

/** The stories where the cache says, while their bytes there are still those stories (the file is hashed as it is copied). */
function fromCache(target: string, edits: readonly StoryEdit[], cache: PrdWriteCache): Located | undefined {
  const { digest, spans } = cache;
  const indexes = new Set(edits.map((e) => e.index ?? -1));
  if (
    !digest ||
    !spans ||
    indexes.size < edits.length ||
    ![...indexes].every((i) => i >= 0 && 2 * i + 1 < spans.length)
  )
    return undefined;
  const fd = openSync(target, "r");
  try {
    const { ino, mode } = fstatSync(fd);
    const found: Located["edits"] = [];
    for (const edit of edits) {
      const index = edit.index ?? 0;
      const start = spans[2 * index] ?? 0;
      const bytes = Buffer.alloc((spans[2 * index + 1] ?? 0) - start);
      if (readSync(fd, bytes, 0, bytes.length, start) !== bytes.length) return undefined;
      const edited = editedBytes(bytes, edit);
      if (edited === undefined) return undefined;
      if (edited) found.push({ index, storyId: edit.storyId, bytes: edited });
    }
    return { version: { digest, ino, mode: mode & 0o7777 }, spans, edits: found, gone: [] };
  } finally {
    closeSync(fd);
  }
}

/**
 * The file read once (or, for `redo`, the save our last rename displaced, while the file is still what
 * that rename left): split and edited in a stream when it can be, else edited by jsonc-parser.
 */
function fromFile(target: string, file: string, edits: readonly StoryEdit[], redo: Redo | undefined): Edited {
  const { bytes: read, ...version } = readVersion(target);
  const redone = redo?.over === version.digest;
  const bytes = redo && redone ? Buffer.from(redo.text, "utf8") : read;
  if (edits.every((e) => e.storyId)) {
    const wanted = new Map(edits.map((e) => [e.storyId, e]));
    const found: Located["edits"] = [];
    let editable = true;
    const split = readPrdSync(target, {
      bytes,
      whole: false,
      source: true,
      onStory: (value, index, story) => {
        const id = (value as { id?: unknown } | null)?.id;
        const edit = typeof id === "string" ? wanted.get(id) : undefined;
        if (!edit || !story || !wanted.delete(edit.storyId)) return;
        const edited = editedBytes(story, edit);
        if (edited) found.push({ index, storyId: edit.storyId, bytes: edited });
        else editable &&= edited === null;
      },
    });
    if (editable && split.source) {
      const located = { version, spans: split.source.spans, edits: found, gone: [...wanted.keys()], bytes };
      return copyEdited(target, redone ? { ...located, redo: true } : located);
    }
  }
  return { ...editWhole(target, file, bytes.toString("utf8"), edits, version, redone), read: version.digest };
}

/**
 * jsonc-parser's edits of the whole text, each story found by its id (else by its index), in the
 * text's own indentation and line ends. A displaced save (`redone`) is written even if it holds every edit.
 */
function editWhole(
  target: string,
  file: string,
  original: string,
  edits: readonly StoryEdit[],
  version: PrdVersion,
  redone: boolean,
): Omit<Edited, "read"> {
  if (!wholeJson(original))
    throw new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
  const { applyEdits, modify, parse } = jsoncParser();
  const stories = (parse(original, [], { allowTrailingComma: true }) as { userStories?: unknown } | undefined)
    ?.userStories;
  const list: Array<Record<string, unknown> | null> = Array.isArray(stories) ? stories : [];
  const ids = list.map((s) => (typeof s?.id === "string" ? s.id : ""));
  const indent = /\n([ \t]+)"/.exec(original)?.[1] ?? "  ";
  const tabs = indent.startsWith("\t");
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const formattingOptions = { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol };
  let text = original;
  const changed: string[] = [];
  const gone: string[] = [];
  for (const edit of edits) {
    const index = edit.storyId ? ids.indexOf(edit.storyId) : (edit.index ?? -1);
    const story = list[index];
    if (!story || typeof story !== "object") {
      gone.push(edit.storyId);
      continue;
    }
    const fields = { passes: edit.passes, notes: edit.notes(typeof story.notes === "string" ? story.notes : "") };
    const before = text;
    for (const [field, value] of Object.entries(fields))
      if (story[field] !== value)
        text = applyEdits(text, modify(text, ["userStories", index, field], value, { formattingOptions }));
    if (text !== before) changed.push(edit.storyId);
  }
  if (!changed.length && !redone)
    return { replacement: { kind: "unchanged" }, changed, gone, left: { digest: version.digest } };
  const replacement = replacePrd(target, text, version);
  if (replacement.kind === "changed") return { replacement, changed, gone };
  return { replacement, changed, gone, redone, left: { digest: createHash("sha256").update(text).digest("hex") } };
}
