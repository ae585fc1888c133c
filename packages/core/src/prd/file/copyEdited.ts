import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { prdChunks } from "./prdChunks.js";
import { type Replacement, replacePrd } from "./replacePrd.js";
import { type StoryEdit, setStoryFields } from "./storyText.js";

/** The stories an edit changes in one version of a PRD file (see `PrdSource` for `spans`). */
export interface Located {
  /** sha256 (hex) of the version the spans are of: the file must still be it right before the rename. */
  digest: string;
  spans: number[];
  /** The edits, each with its story's index. */
  edits: Array<StoryEdit & { index: number }>;
  /** The ids of edits whose story is not in it. */
  gone: string[];
}

/** What one try at a PRD's write did. */
export interface Attempt {
  /** `unchanged`: the file held every edit already, nothing was written. */
  replacement: Replacement | { kind: "unchanged" };
  /** Ids of the stories it changed, and of those it did not find. */
  changed: string[];
  gone: string[];
  /** sha256 (hex) of the file it read ("" when the file was not the version expected). */
  read: string;
  /** What the file holds now (its digest, and where each story is when known). */
  left?: { digest: string; spans?: number[] };
}

/**
 * A PRD edited in a stream: its bytes (read from the file a chunk at a time, hashed on the way) are copied to the replacement with the located stories' bytes edited (see
 * {@link setStoryFields}), so a PRD of any size is rewritten in the memory of a chunk and its edited
 * stories. It replaces the file only when the file is still the located version right before the
 * rename (see {@link replacePrd}); else `changed`, nothing written. Undefined when a located story's
 * bytes are not the story its edit names (or cannot be edited so).
 */
export function copyEdited(target: string, located: Located): Attempt | undefined {
  const { digest, spans, gone } = located;
  const fd = openSync(target, "r");
  try {
    const { ino, mode } = fstatSync(fd);
    const version = { digest, ino, mode: mode & 0o7777 };
    const edits: Array<{ index: number; storyId: string; bytes: Buffer }> = [];
    for (const edit of [...located.edits].sort((a, b) => a.index - b.index)) {
      const [start, end] = [spans[2 * edit.index] ?? 0, spans[2 * edit.index + 1] ?? 0];
      const story = Buffer.alloc(end - start);
      if (readSync(fd, story, 0, story.length, start) !== story.length) return undefined;
      const text = story.toString("utf8");
      const edited = setStoryFields(text, edit);
      if (edited === undefined) return undefined;
      if (edited !== text) edits.push({ index: edit.index, storyId: edit.storyId, bytes: Buffer.from(edited, "utf8") });
    }
    const changed = edits.map((e) => e.storyId);
    if (!edits.length)
      return { replacement: { kind: "unchanged" }, changed, gone, read: digest, left: { digest, spans } };
    const read = createHash("sha256");
    const wrote = createHash("sha256");
    const copy = (write: (bytes: Uint8Array) => void) => {
      const out = (piece: Uint8Array) => {
        write(piece);
        wrote.update(piece);
      };
      let position = 0;
      let next = 0;
      for (const chunk of prdChunks(target, { fd, reuse: true })) {
        read.update(chunk);
        for (let i = 0; i < chunk.length; ) {
          const edit = edits[next];
          const start = edit ? (spans[2 * edit.index] ?? 0) - position : chunk.length;
          if (i < start) {
            out(chunk.subarray(i, Math.min(chunk.length, start)));
            i = Math.min(chunk.length, start);
          } else if (edit) {
            // The story's own bytes are left out; its edited bytes go where it starts.
            if (i === start) out(edit.bytes);
            const end = (spans[2 * edit.index + 1] ?? 0) - position;
            if (end > chunk.length) i = chunk.length;
            else {
              i = Math.max(i, end);
              next++;
            }
          }
        }
        position += chunk.length;
      }
    };
    let matched = false;
    const replacement = replacePrd(target, copy, version, () => {
      matched = read.digest("hex") === digest;
      return matched;
    });
    if (replacement.kind === "changed") return { replacement, changed: [], gone, read: matched ? digest : "" };
    return {
      replacement,
      changed,
      gone,
      read: digest,
      left: { digest: wrote.digest("hex"), spans: moved(spans, edits) },
    };
  } finally {
    closeSync(fd);
  }
}

/** The spans of the stories once `edits` replaced some stories' bytes. */
function moved(spans: readonly number[], edits: ReadonlyArray<{ index: number; bytes: Buffer }>): number[] {
  const sizes = new Map(edits.map((e) => [e.index, e.bytes.length]));
  let shift = 0;
  return spans.map((offset, i) => {
    // A story's start moves by the edits before it, its end by its own edit too.
    const size = i % 2 === 1 ? sizes.get((i - 1) / 2) : undefined;
    if (size !== undefined) shift += size - (offset - (spans[i - 1] ?? 0));
    return offset + shift;
  });
}
