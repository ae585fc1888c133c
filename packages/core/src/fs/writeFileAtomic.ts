import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { processAlive } from "./processAlive.js";

let counter = 0;

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** Flush the temp file to disk before the rename (durable across a power cut, not only a crash). */
  fsync?: boolean;
  /** File mode of the new file (default 0o644); pass the old file's mode to keep it. */
  mode?: number;
  /**
   * Called after the temp file is written, right before the rename: returning false abandons the
   * write (the temp file is removed, the file is left as it is) and makes the call return false.
   */
  beforeRename?: () => boolean;
}

/**
 * Content produced in pieces: called with a `write` that appends bytes or text to the new file, so a
 * large file can be streamed from another without ever being whole in memory.
 */
export type ContentWriter = (write: (data: string | Uint8Array) => void) => void;

/** The temp files of this writer are `.<name>.<pid>.<n>.tmp`, so a dead writer's leftovers are known. */
const tempName = (file: string, pid: number, n: number) => `.${basename(file)}.${pid}.${n}.tmp`;

/**
 * Replaces a file's content atomically: a temp file in the same folder (created with its parents,
 * owner-only when `mode` is), then
 * rename. A reader, or a crash at any moment, sees the old content or the new, never half of it; a
 * failed write or rename leaves no temp file behind. Returns false when `beforeRename` said no. `data`
 * may be given as parts, written one after the other (a large file is then never one string), or as a
 * {@link ContentWriter} that writes it piece by piece.
 */
export function writeFileAtomic(
  file: string,
  data: string | readonly string[] | ContentWriter,
  options: WriteFileAtomicOptions = {},
): boolean {
  // The folder made for an owner-only file is owner-only too (a `.flow/cache` of 0755 listed its names).
  const ownerOnly = options.mode !== undefined && (options.mode & 0o077) === 0;
  mkdirSync(dirname(file), { recursive: true, ...(ownerOnly ? { mode: 0o700 } : {}) });
  const { fd, temp } = createTemp(file, options.mode ?? 0o644);
  try {
    try {
      if (typeof data === "string") writeSync(fd, data);
      else if (typeof data === "function") data((piece) => writeAll(fd, piece));
      else writeParts(fd, data);
      if (options.mode !== undefined) fchmodSync(fd, options.mode);
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.beforeRename && !options.beforeRename()) {
      rmSync(temp, { force: true });
      return false;
    }
    renameSync(temp, file);
    return true;
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Creates the temp file exclusively and without following a link: a name planted in advance (a link to a
 * file elsewhere, or a dead writer's leftover of the same pid) is never written through, another is tried.
 */
function createTemp(file: string, mode: number): { fd: number; temp: string } {
  for (let attempt = 0; ; attempt++) {
    const temp = join(dirname(file), tempName(file, process.pid, counter++));
    try {
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
      return { fd: openSync(temp, flags, mode), temp };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw error;
    }
  }
}

/** Writes all of `data` (a write to a file may take less than asked). */
function writeAll(fd: number, data: string | Uint8Array): void {
  if (typeof data === "string") {
    writeSync(fd, data);
    return;
  }
  for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
}

/**
 * Writes parts in order, about {@link PART_BATCH} characters per write: small parts are gathered, a
 * large one is written a slice at a time (never splitting a surrogate pair), so no copy of the whole
 * content is made.
 */
function writeParts(fd: number, parts: readonly string[]): void {
  let batch: string[] = [];
  let size = 0;
  const flush = () => {
    if (batch.length) writeSync(fd, batch.join(""));
    batch = [];
    size = 0;
  };
  for (const part of parts) {
    if (part.length < PART_BATCH) {
      batch.push(part);
      size += part.length;
      if (size >= PART_BATCH) flush();
      continue;
    }
    flush();
    for (let start = 0; start < part.length; ) {
      let end = Math.min(start + PART_BATCH, part.length);
      const last = part.charCodeAt(end - 1);
      if (end < part.length && last >= 0xd800 && last <= 0xdbff) end--;
      writeSync(fd, part.slice(start, end));
      start = end;
    }
  }
  flush();
}

const PART_BATCH = 256 * 1024;

/**
 * Removes the temp files {@link writeFileAtomic} left beside `file` when its process was killed
 * mid-write (`.<name>.<pid>.<n>.tmp` whose pid is no longer alive). Returns the names removed.
 */
export function removeStaleTempFiles(file: string): string[] {
  const prefix = `.${basename(file)}.`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const match = /^(\d+)\.(\d+)\.tmp$/.exec(name.slice(prefix.length));
    const pid = Number(match?.[1]);
    if (!match || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(dirname(file), name), { force: true });
    removed.push(name);
  }
  return removed;
}
