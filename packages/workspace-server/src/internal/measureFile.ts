import type { FileHandle } from "node:fs/promises";

/** Bytes git looks at to call a file binary: a NUL byte among them. */
const BINARY_SNIFF_BYTES = 8000;

/** True when the buffer's first bytes hold a NUL, git's test for binary content. */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Size and line count of one file; `lines` is null for binary files. */
export interface FileMeasure {
  bytes: number;
  lines: number | null;
  binary: boolean;
}

/**
 * Streams a file once: counts newlines (a last line without one counts too) and stops early on binary
 * content, so even large files are measured in bounded memory. Reads from an open (checked) descriptor,
 * which the caller closes.
 */
export async function measureFile(file: FileHandle): Promise<FileMeasure> {
  let bytes = 0;
  let newlines = 0;
  let last = -1;
  let first = true;
  const stream = file.createReadStream({ start: 0, autoClose: false });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (first && looksBinary(chunk)) {
      stream.destroy();
      return { bytes: (await file.stat()).size, lines: null, binary: true };
    }
    first = false;
    bytes += chunk.length;
    let at = chunk.indexOf(10);
    while (at !== -1) {
      newlines++;
      at = chunk.indexOf(10, at + 1);
    }
    last = chunk[chunk.length - 1] ?? last;
  }
  const lines = bytes === 0 ? 0 : newlines + (last === 10 ? 0 : 1);
  return { bytes, lines, binary: false };
}
