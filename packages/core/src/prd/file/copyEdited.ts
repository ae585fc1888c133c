import { createHash } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import { prdChunks } from "./prdChunks.js";
import { type PrdVersion, type Replacement, replacePrd } from "./replacePrd.js";
import { type StoryEdit, setStoryFields } from "./storyText.js";

/** The stories of one version of a PRD file (see `PrdSource` for `spans`) whose bytes an edit changes. */
export interface Located {
  /** The version the file must still be right before the rename. */
  version: PrdVersion;
  spans: number[];
  /** Each changed story's index, id and new bytes. */
  edits: Array<{ index: number; storyId: string; bytes: Buffer }>;
  /** The ids of edits whose story is not in it. */
  gone: string[];
  /** The bytes the spans are of, when read already (else the file is read, and must hash to `version.digest`). */
  bytes?: Buffer;
  /** The bytes are a save the last rename displaced: written even unedited. */
  redo?: boolean;
}

/** What one try at a PRD's write did. */
export interface Edited {
  /** `unchanged`: the file held every edit already, nothing was written. */
  replacement: Replacement | { kind: "unchanged" };
  /** Ids of the stories it changed, and of those it did not find. */
  changed: string[];
  gone: string[];
  /** sha256 (hex) of the file it read. */
  read: string;
  /** What the file holds now (its digest, and where each story is when known). */
  left?: { digest: string; spans?: number[] };
  /** A save its last rename displaced was edited again. */
  redone?: boolean;
}

/** A story's bytes with the edit made: null when they hold it already, undefined when they are not that story. */
export function editedBytes(bytes: Buffer, edit: StoryEdit): Buffer | null | undefined {
  const text = bytes.toString("utf8");
  const edited = setStoryFields(text, edit);
  if (edited === undefined) return undefined;
  return edited === text ? null : Buffer.from(edited, "utf8");
}

/**
 * A PRD edited in a stream: its bytes (read already, or read from the file a chunk at a time, hashed
 * on the way) are copied to the replacement with the located stories' bytes replaced, so a PRD of any
 * size is rewritten in constant memory. It replaces the file only when the file is still `version`
 * right before the rename (see {@link replacePrd}); else `changed`, nothing written.
 */
export function copyEdited(target: string, located: Located): Edited {
  const { spans, gone, version, bytes } = located;
  const { digest } = version;
  const edits = [...located.edits].sort((a, b) => a.index - b.index);
  const changed = edits.map((e) => e.storyId);
  if (!edits.length && !located.redo)
    return { replacement: { kind: "unchanged" }, changed, gone, read: digest, left: { digest, spans } };
  const fd = bytes ? undefined : openSync(target, "r");
  try {
    const read = createHash("sha256");
    const wrote = createHash("sha256");
    const copy = (write: (bytes: Uint8Array) => void) => {
      const out = (piece: Uint8Array) => {
        write(piece);
        wrote.update(piece);
      };
      let position = 0;
      let next = 0;
      for (const chunk of bytes ? [bytes] : prdChunks(target, { fd, reuse: true })) {
        if (!bytes) read.update(chunk);
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
      matched = bytes !== undefined || read.digest("hex") === digest;
      return matched;
    });
    if (replacement.kind === "changed") return { replacement, changed: [], gone, read: matched ? digest : "" };
    const sizes = new Map(edits.map((e) => [e.index, e.bytes.length]));
    let shift = 0;
    const moved = spans.map((offset, i) => {
      // A story's start moves by the edits before it, its end by its own edit too.
      const size = i % 2 === 1 ? sizes.get((i - 1) / 2) : undefined;
      if (size !== undefined) shift += size - (offset - (spans[i - 1] ?? 0));
      return offset + shift;
    });
    const left = { digest: wrote.digest("hex"), spans: moved };
    return { replacement, changed, gone, read: digest, left, ...(located.redo ? { redone: true } : {}) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
