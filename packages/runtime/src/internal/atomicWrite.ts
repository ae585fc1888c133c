import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let counter = 0;

/**
 * Replaces a file's content atomically: a temp file in the same folder, then rename. Readers (and a
 * crash at any moment) see the old content or the new, never half of it.
 */
export function writeFileAtomic(file: string, data: string, options: { fsync?: boolean; mode?: number } = {}): void {
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
