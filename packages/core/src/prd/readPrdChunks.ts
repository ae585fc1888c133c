import { type FileHandle, open } from "node:fs/promises";
import { MeshflowError } from "../errors/MeshflowError.js";
import type { PrdLimits } from "./prdLimits.js";
import { tooManyBytes } from "./prdLimits.js";

/** Bytes read at a time: a PRD of any size is read in this much memory plus one story. */
const CHUNK = 1024 * 1024;

/** `file_not_found` for a PRD that cannot be read, naming it and why. */
export function unreadable(file: string, cause: unknown): MeshflowError {
  const reason = (cause as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(cause);
  return new MeshflowError("file_not_found", `${file}: cannot read PRD: ${reason}`, { cause, details: { file } });
}

/**
 * Hands a PRD file's bytes to `onChunk` a chunk at a time (each chunk a buffer of its own), within
 * `limits.maxBytes`: the open file's size is checked before anything is read (a 1 GiB file is refused
 * at once, not after reading it whole into a string too long for V8), and the bytes read are counted
 * too, for a file that grows meanwhile or has no size (a FIFO). Throws `prd_too_large` past the limit.
 */
export async function readPrdChunks(file: string, limits: PrdLimits, onChunk: (chunk: Buffer) => void): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, "r");
  } catch (cause) {
    throw unreadable(file, cause);
  }
  try {
    const { size } = await handle.stat();
    if (size > limits.maxBytes) throw tooManyBytes(file, size, limits);
    let read = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read > limits.maxBytes) throw tooManyBytes(file, read, limits);
      onChunk(bytesRead === CHUNK ? buffer : buffer.subarray(0, bytesRead));
    }
  } catch (error) {
    if (error instanceof MeshflowError) throw error;
    throw unreadable(file, error);
  } finally {
    await handle.close();
  }
}
