import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let counter = 0;

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** Flush the temp file to disk before the rename (durable across a power cut, not only a crash). */
  fsync?: boolean;
  /** File mode of the new file (default 0o644); pass the old file's mode to keep it. */
  mode?: number;
}

/**
 * Replaces a file's content atomically: a temp file in the same folder (created with its parents), then
 * rename. A reader, or a crash at any moment, sees the old content or the new, never half of it; a
 * failed rename leaves no temp file behind.
 */
export function writeFileAtomic(file: string, data: string, options: WriteFileAtomicOptions = {}): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(temp, "w", options.mode ?? 0o644);
  try {
    writeSync(fd, data);
    if (options.mode !== undefined) fchmodSync(fd, options.mode);
    if (options.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
