import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { jsoncParser, MeshflowError, type PrdSource, removeStaleTempFiles } from "@meshflow/core";
import type { FormattingOptions } from "jsonc-parser";
import { locateStoryFields, type Span, type StoryFields } from "./locateStoryFields.js";
import { currentVersion } from "./prdVersion.js";
import { replacePrd, wholeJson } from "./replacePrd.js";
import { type IndexedMark, joinNote, markStoryText, streamStoriesPassed } from "./streamStoriesPassed.js";

/** One story to mark as passed, with the note to append to its `notes`. */
export interface PassMark {
  storyId: string;
  /** Its position in `userStories`, when known: lets the write-back edit it in a stream (see {@link WriteBackCache.source}). */
  index?: number;
  note: string;
}

/** How jsonc-parser's edits of a PRD write what they add: the file's own indentation and line ends. */
export function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

/**
 * The general path of one mark: jsonc-parser edits of the whole text (also inserting `passes`/`notes`),
 * for a story not found where the text was located or marked twice in one write.
 */
function markWithEdits(text: string, file: string, mark: PassMark): string {
  const { applyEdits, modify, parse } = jsoncParser();
  const data = parse(text) as { userStories?: unknown };
  const stories = Array.isArray(data?.userStories) ? (data.userStories as Array<Record<string, unknown>>) : [];
  const index = stories.findIndex((s) => s && typeof s === "object" && s.id === mark.storyId);
  if (index < 0)
    throw new MeshflowError(
      "prd_changed",
      `${file}: story "${mark.storyId}" is no longer in userStories; not marked passed`,
    );
  const story = stories[index] ?? {};
  const notes = typeof story.notes === "string" ? story.notes : "";
  if (story.passes === true && notes.includes(mark.note)) return text;
  const formattingOptions = formattingOf(text);
  let next = applyEdits(text, modify(text, ["userStories", index, "passes"], true, { formattingOptions }));
  next = applyEdits(
    next,
    modify(next, ["userStories", index, "notes"], joinNote(notes, mark.note), { formattingOptions }),
  );
  return next;
}

/** Attempts before a PRD that keeps changing under the write-back is given up on (with an error). */
export const WRITE_BACK_ATTEMPTS = 8;

/** What identifies one version of the file: its content's digest and inode (a rename-save makes a new one). */
export interface Version {
  text: string;
  digest: string;
  ino: number;
  mode: number;
}

/** The file's text and what identifies this version of it. */
export function readVersion(file: string): Version {
  const fd = openSync(file, "r");
  try {
    const stat = fstatSync(fd);
    const bytes = readFileSync(fd);
    return {
      text: bytes.toString("utf8"),
      digest: createHash("sha256").update(bytes).digest("hex"),
      ino: stat.ino,
      mode: stat.mode & 0o7777,
    };
  } finally {
    closeSync(fd);
  }
}

/** True when the file is still what the last write of `cache` left (nobody changed it since). */
export function unchangedSince(file: string, cache: WriteBackCache): boolean {
  try {
    return cache.digest !== undefined && currentVersion(realpathSync(file)).digest === cache.digest;
  } catch {
    return false;
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Marks stories as passed in the PRD file: `passes: true` and a note appended to `notes`. Only the
 * completion gate (and `flow mark`) calls this. The file is re-read and only those values are
 * replaced, so every other byte stays as it was (key order, unknown fields, indentation, line ends).
 * The result replaces the file atomically (temp file + rename, same mode) and only if the file is
 * still the version that was read, checked right before the rename; otherwise it starts over from
 * the new content, so an edit saved meanwhile (by rename or in place) is kept. A save in place that
 * lands between that check and the rename is found in the replaced file (see {@link replacePrd}) and
 * the marks are written again on it. A PRD that is a symlink is written through to its target; temp
 * files left by a killed writer are removed. Idempotent: a story already carrying its note is left
 * alone. Throws `prd_changed` when a story is gone or the file kept changing for
 * {@link WRITE_BACK_ATTEMPTS} attempts.
 */
export function writeStoriesPassed(
  file: string,
  batch: readonly PassMark[],
  cache?: WriteBackCache,
): { changed: number; foreign: boolean } {
  if (!batch.length) return { changed: 0, foreign: false };
  // A story marked twice in one batch is edited once.
  const marks = [...new Map(batch.map((m) => [`${m.storyId}\u0000${m.note}`, m])).values()];
  const target = realpathSync(file);
  removeStaleTempFiles(target);
  const source = cache?.source;
  /** A save in place our last rename displaced, and the digest of what that rename left. */
  let displaced: { text: string; over: string } | undefined;
  let changed = 0;
  if (source && marks.every((m): m is IndexedMark => m.index !== undefined)) {
    const streamed = streamStoriesPassed(target, marks, source);
    if (streamed && streamed.displaced === undefined) {
      if (cache) cache.digest = source.digest;
      return { changed: streamed.changed, foreign: false };
    }
    if (streamed?.displaced !== undefined) {
      displaced = { text: streamed.displaced, over: source.digest };
      changed = streamed.changed;
    }
  }
  // The general path: the story positions the preflight found are no longer known to be right.
  if (cache) cache.source = undefined;
  let failure: unknown;
  // A displaced save is always written back, even after the attempts for the marks ran out.
  for (
    let attempt = 1;
    attempt <= WRITE_BACK_ATTEMPTS || (displaced && attempt <= 4 * WRITE_BACK_ATTEMPTS);
    attempt++
  ) {
    const version = readVersion(target);
    // The displaced save is the newest content while the file is still what our rename left.
    const redo = displaced?.over === version.digest ? displaced.text : undefined;
    displaced = undefined;
    const text = redo ?? version.text;
    const trusted = redo === undefined && cache?.digest !== undefined && cache.digest === version.digest;
    // Someone else wrote the file since this process last did (or during this write).
    const foreign = attempt > 1 || redo !== undefined || (cache?.digest !== undefined && !trusted);
    let next: { parts: string[]; changed: number; digest: string } | undefined;
    try {
      if (!trusted && !wholeJson(text))
        throw new MeshflowError("prd_changed", `${file}: not a whole JSON document (is it being saved?)`);
      next = applyMarks(text, file, marks, cache, trusted);
    } catch (error) {
      failure = error;
    }
    if (next) {
      // A displaced save is written even when it already holds every mark: it is the user's newest content.
      if (!next.changed && redo === undefined) return { changed, foreign };
      const replaced = replacePrd(target, next.parts, version);
      changed = Math.max(changed, next.changed);
      if (replaced.kind === "replaced") return { changed, foreign };
      if (replaced.kind === "displaced") displaced = { text: replaced.text, over: next.digest };
      failure = new MeshflowError(
        "prd_changed",
        `${file}: changed by someone else during each of ${WRITE_BACK_ATTEMPTS} attempts to mark ${marks.map((m) => m.storyId).join(", ")} as passed; not marked`,
        { details: { stories: marks.map((m) => m.storyId) } },
      );
    }
    if (cache) cache.digest = cache.fields = undefined;
    if (!displaced && attempt < WRITE_BACK_ATTEMPTS) pause(5 * attempt);
  }
  throw failure;
}

/**
 * The PRD text with `marks` applied (only `passes` and `notes` of those stories change), as parts to
 * write one after the other: a large PRD is not copied into one new string.
 */
function applyMarks(
  original: string,
  file: string,
  marks: readonly PassMark[],
  cache: WriteBackCache | undefined,
  trusted: boolean,
): { parts: string[]; changed: number; digest: string } {
  const fields = (trusted && cache?.fields) || locateStoryFields(original);
  const splices: Array<{ start: number; end: number; value: string }> = [];
  const slow: PassMark[] = [];
  /** Stories edited whole (a `passes` or `notes` member added): the next write locates the fields again. */
  let added = false;
  const edited = new Set<string>();
  for (const mark of marks) {
    const f = fields?.get(mark.storyId);
    // A second mark of the same story in one batch (another note): one edit of a story per write.
    if (!f || edited.has(mark.storyId)) {
      slow.push(mark);
      continue;
    }
    if (f.passes && f.notes && f.notesValue !== undefined) {
      if (original.slice(f.passes[0], f.passes[1]) === "true" && f.notesValue.includes(mark.note)) continue;
      edited.add(mark.storyId);
      splices.push({ start: f.passes[0], end: f.passes[1], value: "true" });
      splices.push({ start: f.notes[0], end: f.notes[1], value: JSON.stringify(joinNote(f.notesValue, mark.note)) });
      continue;
    }
    // A story without `passes` or `notes` yet: its object is rewritten with them.
    const story = f.object && original.slice(f.object[0], f.object[1]);
    const marked = story === undefined ? undefined : markStoryText(story, mark);
    if (!f.object || marked === undefined) {
      slow.push(mark);
      continue;
    }
    if (marked === story) continue;
    edited.add(mark.storyId);
    added = true;
    splices.push({ start: f.object[0], end: f.object[1], value: marked });
  }
  splices.sort((a, b) => a.start - b.start);
  let parts: string[] = [];
  let at = 0;
  for (const s of splices) {
    parts.push(original.slice(at, s.start), s.value);
    at = s.end;
  }
  parts.push(original.slice(at));
  let changed = edited.size;
  if (slow.length) {
    // Stories not found where expected, or marked twice: the general path, on the whole text.
    let text = parts.join("");
    for (const mark of slow) {
      const next = markWithEdits(text, file, mark);
      if (next !== text) changed++;
      text = next;
    }
    parts = [text];
  }
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  const digest = hash.digest("hex");
  if (cache) {
    cache.digest = digest;
    cache.fields = slow.length || added || !fields ? undefined : shifted(fields, splices);
  }
  return { parts, changed, digest };
}

/**
 * What the last write left in the file, so the next write of the same process skips locating the
 * stories again when nobody else changed the file in between (a big PRD gets many quick writes). The
 * file is known by its digest, not kept: a PRD's text would otherwise stay in memory for the whole run.
 */
export interface WriteBackCache {
  /** sha256 (hex) of the bytes the last write left (or the preflight read). */
  digest?: string | undefined;
  fields?: Map<string, StoryFields> | undefined;
  /**
   * The file's bytes as the preflight read them and every write of this process left them: marks
   * with an `index` are then written in a stream, in constant memory (dropped after a general write).
   */
  source?: PrdSource | undefined;
}

/** The story fields after `splices` (ascending, non-overlapping) were applied. */
function shifted(
  fields: ReadonlyMap<string, StoryFields>,
  splices: ReadonlyArray<{ start: number; end: number; value: string }>,
): Map<string, StoryFields> {
  const starts = splices.map((s) => s.start);
  // Total length change of the splices that end at or before `offset`.
  const deltas: number[] = [0];
  for (const s of splices) deltas.push((deltas.at(-1) ?? 0) + s.value.length - (s.end - s.start));
  /** How many splices start before `offset`. */
  const count = (offset: number): number => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] ?? 0) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** A value's span: replaced by the splice that starts there, or moved by those before it. */
  const move = (span: Span | undefined): Span | undefined => {
    if (!span) return undefined;
    const lo = count(span[0]);
    const base = span[0] + (deltas[lo] ?? 0);
    const own = splices[lo];
    return own && own.start === span[0] ? [base, base + own.value.length] : [base, base + span[1] - span[0]];
  };
  /** A story object's span: its start moved by the splices before it, its end by those inside it too. */
  const stretch = (span: Span | undefined): Span | undefined =>
    span && [span[0] + (deltas[count(span[0])] ?? 0), span[1] + (deltas[count(span[1])] ?? 0)];
  const byStart = new Map(splices.map((s) => [s.start, s]));
  const next = new Map<string, StoryFields>();
  for (const [id, f] of fields) {
    const notes = move(f.notes);
    const rewritten = f.notes ? byStart.get(f.notes[0]) : undefined;
    next.set(id, {
      ...(f.object ? { object: stretch(f.object) } : {}),
      ...(f.passes ? { passes: move(f.passes) } : {}),
      ...(notes ? { notes } : {}),
      ...(f.notesValue !== undefined
        ? { notesValue: rewritten ? (JSON.parse(rewritten.value) as string) : f.notesValue }
        : {}),
    });
  }
  return next;
}

/** {@link writeStoriesPassed} for one story. */
export function writeStoryPassed(file: string, storyId: string, note: string): { changed: boolean } {
  return { changed: writeStoriesPassed(file, [{ storyId, note }]).changed > 0 };
}
