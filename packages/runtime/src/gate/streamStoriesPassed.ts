import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { PrdSource } from "@meshflow/core";
import { replacePrd } from "./replacePrd.js";
import { setStoryFields } from "./storyText.js";

/** A mark whose story's position in the PRD (`userStories` index) is known. */
export interface IndexedMark {
  storyId: string;
  index: number;
  note: string;
}

/** Bytes copied at a time from the PRD to its replacement. */
const CHUNK = 1024 * 1024;

/**
 * Marks stories passed in a PRD whose bytes are still those of `source`, in a stream: the file is
 * copied to its replacement a chunk at a time, and only the marked stories' bytes (found by
 * `source.spans`) are read whole and edited, so a PRD of any size is rewritten in constant memory.
 * The copy is hashed as it is read, and the replacement is renamed over the file only when that
 * hash is `source.digest` and the file is still the same inode with the same digest right before
 * the rename (see {@link replacePrd}). On success `source` describes the new file (its digest and
 * shifted spans); `displaced` is a save in place that landed in the replaced file meanwhile, on
 * which the caller writes the marks again.
 *
 * Returns undefined, leaving the file as it is, when the file is not the version `source` describes
 * or a marked story's bytes are not what they should be (not that story, or `notes` not a string):
 * the caller then takes the general path.
 */
export function streamStoriesPassed(
  file: string,
  marks: readonly IndexedMark[],
  source: PrdSource,
): { changed: number; displaced?: string } | undefined {
  const { spans } = source;
  const ordered = [...new Map(marks.map((m) => [m.index, m])).values()].sort((a, b) => a.index - b.index);
  if (ordered.some((m) => !(m.index >= 0 && 2 * m.index + 1 < spans.length))) return undefined;
  const fd = openSync(file, "r");
  try {
    const stat = fstatSync(fd);
    const read = createHash("sha256");
    const wrote = createHash("sha256");
    const edits: Array<{ index: number; delta: number }> = [];
    let faithful = true;
    const replaced = replacePrd(
      file,
      (write) => {
        const buffer = Buffer.allocUnsafe(CHUNK);
        let position = 0;
        const out = (bytes: Uint8Array) => {
          write(bytes);
          wrote.update(bytes);
        };
        const copyTo = (end: number) => {
          while (faithful && position < end) {
            const got = readSync(fd, buffer, 0, Math.min(CHUNK, end - position), position);
            if (got <= 0) faithful = false;
            else {
              const bytes = buffer.subarray(0, got);
              read.update(bytes);
              out(bytes);
              position += got;
            }
          }
        };
        for (const mark of ordered) {
          const start = spans[2 * mark.index] as number;
          const end = spans[2 * mark.index + 1] as number;
          copyTo(start);
          if (!faithful || end > stat.size) {
            faithful = false;
            return;
          }
          const bytes = Buffer.allocUnsafe(end - start);
          if (readSync(fd, bytes, 0, bytes.length, start) !== bytes.length) {
            faithful = false;
            return;
          }
          read.update(bytes);
          position = end;
          const text = bytes.toString("utf8");
          const next = markStoryText(text, mark);
          if (next === undefined) {
            faithful = false;
            return;
          }
          if (next === text) out(bytes);
          else {
            const edited = Buffer.from(next, "utf8");
            out(edited);
            edits.push({ index: mark.index, delta: edited.length - bytes.length });
          }
        }
        copyTo(stat.size);
      },
      { digest: source.digest, ino: stat.ino, mode: stat.mode & 0o7777 },
      () => {
        faithful &&= read.digest("hex") === source.digest;
        return faithful && edits.length > 0;
      },
    );
    if (!faithful) return undefined;
    if (replaced.kind === "changed") return edits.length ? undefined : { changed: 0 };
    source.digest = wrote.digest("hex");
    shiftSpans(spans, edits);
    return replaced.kind === "displaced"
      ? { changed: edits.length, displaced: replaced.text }
      : { changed: edits.length };
  } finally {
    closeSync(fd);
  }
}

/** Moves the spans after edits (ascending by index) by the bytes each edit added or removed. */
function shiftSpans(spans: number[], edits: ReadonlyArray<{ index: number; delta: number }>): void {
  let shift = 0;
  let next = 0;
  for (let i = 0; 2 * i < spans.length; i++) {
    spans[2 * i] = (spans[2 * i] as number) + shift;
    const edit = edits[next];
    if (edit?.index === i) {
      shift += edit.delta;
      next++;
    }
    spans[2 * i + 1] = (spans[2 * i + 1] as number) + shift;
  }
}

/**
 * A story's notes with a run's note joined (a space between, none when the notes were empty); notes
 * that already hold the note are kept as they are.
 */
export const joinNote = (notes: string, note: string): string =>
  notes.includes(note) ? notes : notes.trim() ? `${notes.trimEnd()} ${note}` : note;

/**
 * The story's JSON text with `passes` set to true and the mark's note joined to its `notes` (the text
 * itself when both are already so); a story without them gets them (see {@link setStoryFields}).
 * Undefined when the text is not that story or its `notes` is not a string.
 */
export function markStoryText(story: string, mark: { storyId: string; note: string }): string | undefined {
  return setStoryFields(story, mark.storyId, true, (notes) => joinNote(notes, mark.note));
}
