import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { removeStaleTempFiles } from "../../fs/writeFileAtomic.js";
import { jsoncParser } from "../../json/jsoncParser.js";
import { pauseSync } from "../../process/pauseSync.js";
import { CHUNK, prdChunks } from "./prdChunks.js";
import type { PrdSource } from "./readPrd.js";
import { prdDigest, replacePrd } from "./replacePrd.js";
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
/** The buffer every write copies through, a chunk at a time (writes are synchronous). */
let chunk: Buffer | undefined;

/**
 * Sets `passes` and `notes` of stories in a PRD file: the only write meshflow makes to a PRD (the
 * completion gate's marks, `flow mark`, `flow reset`). Every other byte stays (key order, unknown
 * fields, comments, indentation, line ends; see `setStoryFields`). Each story is found by its index,
 * else by its id; a story edited twice in one write gets both notes and the last `passes`. While the
 * file is still what `cache` describes, only the edited stories are read before the file is copied a
 * chunk at a time (constant memory); otherwise it is read whole and jsonc-parser's scanner finds the
 * stories. The copy replaces the file only while it is still the version read (see {@link replacePrd}),
 * else the write starts over on the new content. Throws `prd_changed` when the file kept changing or
 * is not one whole JSON document (being saved).
 */
export function writePrdStories(file: string, edits: readonly StoryEdit[], cache: PrdWriteCache = {}): StoriesWritten {
  if (!edits.length) return { changed: [], gone: [], foreign: false };
  const target = realpathSync(file);
  removeStaleTempFiles(target);
  const changed = new Set<string>();
  /** A save our last rename displaced, and the digest of what that rename left. */
  let displaced: { text: string; over: string } | undefined;
  let foreign = false;
  let failure: unknown;
  // A displaced save is always written back, even after the attempts ran out.
  for (let attempt = 1; attempt <= ATTEMPTS || (displaced && attempt <= 4 * ATTEMPTS); attempt++) {
    const redo = displaced;
    displaced = undefined;
    let fd: number | undefined;
    try {
      fd = openSync(target, "r");
      const { ino, mode } = fstatSync(fd);
      const version = { digest: cache.digest ?? "", ino, mode: mode & 0o7777 };
      // While the file is still what the cache says, nothing but the edited stories is read before the copy.
      let { spans } = cache;
      let bytes: Buffer | undefined;
      if (redo || !version.digest || !spans) {
        bytes = Buffer.concat([...prdChunks(target, { fd })]);
        version.digest = createHash("sha256").update(bytes).digest("hex");
        if (redo?.over === version.digest) bytes = Buffer.from(redo.text, "utf8");
        spans = storySpans(bytes);
        if (!spans) throw new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
      }
      const redone = redo?.over === version.digest;
      foreign ||= attempt > 1 || redone || (cache.digest ?? version.digest) !== version.digest;
      const edited = editStories(storySource(fd, bytes), spans, edits);
      if (!bytes && (edited.gone.length || !edited.changed.length) && prdDigest(target, fd) !== version.digest) {
        // Not the file the cache describes: read it again at once.
        [cache.digest, foreign] = [undefined, true];
        continue;
      }
      for (const id of edited.changed) changed.add(id);
      if (!edited.changed.length && !redone) {
        Object.assign(cache, { digest: version.digest, spans });
        return { changed: [...changed], gone: edited.gone, foreign };
      }
      const read = createHash("sha256");
      const wrote = createHash("sha256");
      const copy = (write: (bytes: Uint8Array) => void) =>
        edited.copy((piece, kept) => {
          if (!bytes && kept !== undefined) read.update(piece);
          if (kept !== false) write(piece);
          if (kept !== false) wrote.update(piece);
        });
      // Read from the file, the bytes copied must be the version the cache describes.
      const replacement = replacePrd(target, copy, version, () => !!bytes || read.digest("hex") === version.digest);
      if (replacement.kind === "changed") cache.digest = undefined;
      else Object.assign(cache, { digest: wrote.digest("hex"), spans: edited.spans });
      if (replacement.kind === "replaced") return { changed: [...changed], gone: edited.gone, foreign };
      if (replacement.kind === "displaced" && cache.digest) displaced = { text: replacement.text, over: cache.digest };
      failure = undefined; // changed under the write
    } catch (error) {
      failure = error;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (!displaced && attempt < ATTEMPTS) pauseSync(5 * attempt);
  }
  const ids = [...new Set(edits.map((e) => e.storyId))];
  const message = `${file}: changed by someone else during each of ${ATTEMPTS} attempts to write ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", …" : ""}; not written`;
  throw failure ?? new MeshflowError("prd_changed", message);
}

/** The PRD's bytes `[from, to)` a chunk at a time (one buffer, reused): of `bytes` when held, else of the open file. */
function storySource(fd: number, bytes: Buffer | undefined): (from: number, to: number) => Generator<Buffer> {
  return function* (from, to) {
    if (bytes) return yield bytes.subarray(from, to);
    chunk ??= Buffer.allocUnsafeSlow(CHUNK);
    for (let at = from, got = 1; at < to && got > 0; at += got) {
      got = readSync(fd, chunk, 0, Math.min(chunk.length, to - at), at);
      if (got > 0) yield chunk.subarray(0, got);
    }
  };
}

/**
 * The edits made to the stories at `spans`: the stories changed and gone, where each story is in the
 * result, and `copy`, which hands every piece of the result to `out` in order — the bytes read (`kept`
 * true), the replaced stories' bytes read but left out (false), their new bytes (undefined).
 */
function editStories(source: ReturnType<typeof storySource>, spans: readonly number[], edits: readonly StoryEdit[]) {
  const stories = spans.length / 2;
  /** Each changed story's new bytes (as bytes: the edited text is made of pieces of the old one, which it would hold). */
  const edited = new Map<number, Buffer>();
  /** Story `i`'s bytes as the file holds them. */
  const read = (i: number) =>
    Buffer.concat(Array.from(source(spans[2 * i] ?? 0, spans[2 * i + 1] ?? 0), (b) => Buffer.from(b)));
  const story = (i: number) => (edited.get(i) ?? read(i)).toString("utf8");
  /** The edit made to story `i`: its index, new text and whether it differs; undefined when `i` is not that story. */
  const apply = (i: number, edit: StoryEdit) => {
    const before = i >= 0 && i < stories ? story(i) : undefined;
    const text = before === undefined ? undefined : setStoryFields(before, edit);
    return text === undefined ? undefined : { i, text, differs: text !== before };
  };
  let byId: Map<string, number> | undefined;
  /** The id of the edits of each changed story, and the stories edited more than once. */
  const whose = new Map<number, string>();
  const again = new Set<number>();
  const gone = new Set<string>();
  for (const edit of edits) {
    let found = apply(edit.index ?? -1, edit);
    if (!found && edit.storyId) {
      byId ??= idsOf(story, stories);
      found = apply(byId.get(edit.storyId) ?? -1, edit);
    }
    if (!found) gone.add(edit.storyId);
    else if (found.differs) {
      if (edited.has(found.i)) again.add(found.i);
      // Not from the shared pool, which the stories' reads fill with garbage: a kept slice would hold its slab.
      edited.set(found.i, Buffer.allocUnsafeSlow(Buffer.byteLength(found.text)));
      edited.get(found.i)?.write(found.text);
      whose.set(found.i, edit.storyId);
    }
  }
  // A story edited back to what it was (passes set, then set back) is left as it is.
  for (const i of again) if (edited.get(i)?.equals(read(i))) edited.delete(i);
  const kept = new Set([...whose].flatMap(([i, id]) => (edited.has(i) ? [id] : [])));
  const changed = [...new Set(edits.map((e) => e.storyId))].filter((id) => kept.has(id));
  const order = [...edited.keys()].sort((a, b) => a - b);
  let shift = 0;
  const moved = spans.map((offset, i) => {
    // A story's start moves by the edits before it, its end by its own edit too.
    const size = i % 2 === 1 ? edited.get((i - 1) / 2)?.length : undefined;
    if (size !== undefined) shift += size - (offset - (spans[i - 1] ?? 0));
    return offset + shift;
  });
  const copy = (out: (piece: Buffer, kept?: boolean) => void) => {
    let at = 0;
    for (const i of order) {
      for (const piece of source(at, spans[2 * i] ?? 0)) out(piece, true);
      for (const piece of source(spans[2 * i] ?? 0, spans[2 * i + 1] ?? 0)) out(piece, false);
      out(edited.get(i) ?? Buffer.alloc(0));
      at = spans[2 * i + 1] ?? 0;
    }
    for (const piece of source(at, Number.POSITIVE_INFINITY)) out(piece, true);
  };
  return { changed, gone: [...gone], spans: moved, copy };
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
