import type { FileHandle } from "node:fs/promises";
import { looksBinary } from "./measureFile.js";

/** A slice of a text file by line numbers. */
export interface LineSlice {
  content: string;
  /** First and last line included (1-based); `endLine` is `startLine - 1` when nothing was included. */
  startLine: number;
  endLine: number;
  totalLines: number;
  bytes: number;
  /** True when the byte cap stopped the slice before `endLine` (or the end of the file). */
  truncated: boolean;
  binary: boolean;
}

/**
 * Reads lines `from`..`to` (1-based, inclusive) of a file, keeping at most `maxBytes` of them (a longer
 * first line is cut), while counting every line — one pass, bounded memory, line endings kept as they are.
 * Reads from an open (checked) descriptor, which the caller closes.
 */
export async function readLines(file: FileHandle, from: number, to: number, maxBytes: number): Promise<LineSlice> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let bytes = 0;
  let line = 1; // line number of the byte being read
  let endLine = from - 1;
  let truncated = false;
  let full = false;
  let first = true;
  let last = -1;
  const stream = file.createReadStream({ start: 0, autoClose: false });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (first && looksBinary(chunk)) {
      stream.destroy();
      return {
        content: "",
        startLine: from,
        endLine: from - 1,
        totalLines: 0,
        bytes: 0,
        truncated: false,
        binary: true,
      };
    }
    first = false;
    bytes += chunk.length;
    last = chunk[chunk.length - 1] ?? last;
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(10, pos);
      const end = nl === -1 ? chunk.length : nl + 1;
      if (line >= from && line <= to && !full) {
        const piece = chunk.subarray(pos, end);
        if (keptBytes + piece.length <= maxBytes) {
          kept.push(piece);
          keptBytes += piece.length;
          endLine = line;
        } else {
          // A single line longer than the cap is cut rather than dropped, so a minified file still shows something.
          if (endLine < from) {
            kept.push(piece.subarray(0, maxBytes - keptBytes));
            keptBytes = maxBytes;
            endLine = line;
          }
          truncated = true;
          full = true;
        }
      }
      if (nl === -1) break;
      line++;
      pos = end;
    }
  }
  const totalLines = bytes === 0 ? 0 : last === 10 ? line - 1 : line;
  const content = Buffer.concat(kept).toString("utf8");
  return {
    content: truncated ? content.replace(/\uFFFD+$/, "") : content,
    startLine: from,
    endLine,
    totalLines,
    bytes,
    truncated,
    binary: false,
  };
}
