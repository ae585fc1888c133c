import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const CHUNK = 1024 * 1024;

/** The inode and content digest (sha256, hex) of a file now, read a chunk at a time (no copy of a large PRD). */
export function currentVersion(file: string): { ino: number; digest: string } {
  const fd = openSync(file, "r");
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(CHUNK);
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
    return { ino: fstatSync(fd).ino, digest: hash.digest("hex") };
  } finally {
    closeSync(fd);
  }
}
