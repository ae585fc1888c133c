import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

let counter = 0;

/**
 * Replaces a file's content atomically: a temp file in the same folder (created with its parents), then
 * rename. A reader, or a crash at any moment, sees the old content or the new, never half of it.
 */
export function writeFileAtomic(file: string, data: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(temp, "w", 0o644);
  try {
    writeSync(fd, data);
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
