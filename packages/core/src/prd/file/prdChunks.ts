import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { type PrdLimits, tooManyBytes } from "./prdLimits.js";

/** Bytes read at a time: a PRD of any size is read in this much memory plus one story. */
export const CHUNK = 1024 * 1024;

/** `file_not_found` for a PRD that cannot be read, naming it and why. */
function unreadable(file: string, cause: unknown): MeshflowError {
  const reason = (cause as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(cause);
  return new MeshflowError("file_not_found", `${file}: cannot read PRD: ${reason}`, { cause, details: { file } });
}

/**
 * A PRD file's bytes a chunk at a time, within `limits.maxBytes`: the
 * open file's size is checked before anything is read (a 1 GiB file is refused at once, not after
 * reading it whole into a string too long for V8), and the bytes read are counted too, for a file that
 * grows meanwhile or has no size (a FIFO). Throws `prd_too_large` past the limit, `file_not_found`
 * when it cannot be read. `fd`: an open file to read from its start instead (the caller closes it).
 * Each chunk is a buffer of its own, unless `reuse` (for a reader that keeps none: a copy, a digest).
 */
export function* prdChunks(
  file: string,
  { limits, fd, reuse }: { limits?: PrdLimits | undefined; fd?: number | undefined; reuse?: boolean } = {},
): Generator<Buffer, void, undefined> {
  let handle: number;
  try {
    handle = fd ?? openSync(file, "r");
  } catch (cause) {
    throw unreadable(file, cause);
  }
  try {
    const max = limits?.maxBytes ?? Number.POSITIVE_INFINITY;
    const { size } = fstatSync(handle);
    if (limits && size > max) throw tooManyBytes(file, size, limits);
    const kept = reuse ? Buffer.allocUnsafe(CHUNK) : undefined;
    for (let read = 0; ; ) {
      const buffer = kept ?? Buffer.allocUnsafe(CHUNK);
      // A file we opened is read on (a FIFO has no positions); one handed over, from its start.
      const got = readSync(handle, buffer, 0, CHUNK, fd === undefined ? null : read);
      if (got === 0) return;
      read += got;
      if (limits && read > max) throw tooManyBytes(file, read, limits);
      yield got === CHUNK ? buffer : buffer.subarray(0, got);
    }
  } catch (error) {
    if (error instanceof MeshflowError) throw error;
    throw unreadable(file, error);
  } finally {
    if (fd === undefined) closeSync(handle);
  }
}
