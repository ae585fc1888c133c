import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { type ContentWriter, jsoncParser, writeFileAtomic } from "@meshflow/core";

/** The version of the PRD a replacement was made from: it replaces the file only while the file is still this. */
export interface ExpectedVersion {
  /** sha256 (hex) of its bytes. */
  digest: string;
  ino: number;
  /** File mode the replacement gets (the file's own). */
  mode: number;
}

/**
 * What {@link replacePrd} did. `changed`: the file was no longer the expected version right before
 * the rename, nothing was written. `replaced`: the new content is in place. `displaced`: it is in
 * place, but a save in place landed in the file it replaced between the check and the rename:
 * `text` is that save (the newest of the user's content), for the caller to redo its edit on.
 */
export type Replacement = { kind: "changed" } | { kind: "replaced" } | { kind: "displaced"; text: string };

const CHUNK = 1024 * 1024;

/** Everything an open file holds now, from its start, a chunk at a time (the fd's own offset is not used). */
function eachChunk(fd: number, use: (bytes: Buffer) => void): void {
  const chunk = Buffer.alloc(CHUNK);
  let position = 0;
  for (let read = readSync(fd, chunk, 0, CHUNK, position); read > 0; read = readSync(fd, chunk, 0, CHUNK, position)) {
    use(chunk.subarray(0, read));
    position += read;
  }
}

/** sha256 (hex) of everything an open file holds now. */
function digestOf(fd: number): string {
  const hash = createHash("sha256");
  eachChunk(fd, (bytes) => hash.update(bytes));
  return hash.digest("hex");
}

/** The text an open file holds now. */
function textOf(fd: number): string {
  const parts: Buffer[] = [];
  eachChunk(fd, (bytes) => parts.push(Buffer.from(bytes)));
  return Buffer.concat(parts).toString("utf8");
}

/**
 * True when `text` is one whole JSON document (an editor saving in place may be half-way through),
 * checked by scanning it without building its value.
 */
export function wholeJson(text: string): boolean {
  let whole = text.trim().length > 0;
  jsoncParser().visit(
    text,
    {
      onError() {
        whole = false;
      },
    },
    { allowTrailingComma: true },
  );
  return whole;
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Reads of a displaced save that is still being written before it is given up on (about 1 s in all):
 * a millisecond apart, so the save is written back before its editor reads the file again.
 */
const WHOLE_ATTEMPTS = 1000;

/**
 * Replaces a PRD atomically (temp file + rename, see `writeFileAtomic`) when it is still `expected`,
 * without ever losing a save that lands meanwhile:
 * - right before the rename the file is opened and checked (inode and digest), and its path checked
 *   to still name that inode: a save by rename or in place before then means `changed`;
 * - the opened file is kept open across the rename. An editor saving in place opens the path with
 *   truncation, which names one file at one instant: a save that opened it after the check but before
 *   the rename writes into the file the rename replaced, where nobody would see it again. Its digest
 *   is taken once more after the rename, and when it changed, the save (read whole, once its writer
 *   is done) comes back as `displaced` so the caller applies its edit to it and replaces again;
 * - a save by rename in the instant between the path check and the rename is still replaced (no
 *   portable call swaps two files atomically); the window is two system calls wide.
 * `check` (optional) is asked after the file's check, right before the rename; false abandons the
 * write (`changed`).
 */
export function replacePrd(
  file: string,
  data: string | readonly string[] | ContentWriter,
  expected: ExpectedVersion,
  check?: () => boolean,
): Replacement {
  let held: number | undefined;
  try {
    const written = writeFileAtomic(file, data, {
      mode: expected.mode,
      beforeRename: () => {
        held = openSync(file, "r");
        if (fstatSync(held).ino !== expected.ino || digestOf(held) !== expected.digest) return false;
        if (check && !check()) return false;
        return statSync(file).ino === expected.ino;
      },
    });
    if (!written || held === undefined) return { kind: "changed" };
    if (digestOf(held) === expected.digest) return { kind: "replaced" };
    // A save in place went into the replaced file; its writer may still be writing.
    for (let attempt = 1; ; attempt++) {
      const text = textOf(held);
      if (wholeJson(text) || attempt >= WHOLE_ATTEMPTS) return { kind: "displaced", text };
      pause(1);
    }
  } finally {
    if (held !== undefined) closeSync(held);
  }
}
