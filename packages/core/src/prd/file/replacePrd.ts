import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, statSync } from "node:fs";
import { type ContentWriter, writeFileAtomic } from "../../fs/writeFileAtomic.js";
import { pauseSync } from "../../process/pauseSync.js";
import { prdChunks } from "./prdChunks.js";
import { storySpans } from "./storySpans.js";

/** One version of a PRD file: what a replacement is made from, and replaces only while the file is still it. */
export interface PrdVersion {
  /** sha256 (hex) of its bytes. */
  digest: string;
  ino: number;
  /** File mode the replacement gets (the file's own). */
  mode: number;
}

/**
 * What {@link replacePrd} did. `changed`: the file was no longer the expected version, nothing was
 * written. `displaced`: written, but a save in place landed in the replaced file meanwhile: `text`.
 */
export type Replacement = { kind: "changed" } | { kind: "replaced" } | { kind: "displaced"; text: string };

/** sha256 (hex) of everything a PRD file (or the open file `fd`, from its start) holds now, read a chunk at a time. */
export function prdDigest(file: string, fd?: number): string {
  const hash = createHash("sha256");
  for (const chunk of prdChunks(file, { fd, reuse: true })) hash.update(chunk);
  return hash.digest("hex");
}

/** Reads of a displaced save still being written, a millisecond apart, before it is taken as it is. */
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
  expected: PrdVersion,
  check?: () => boolean,
): Replacement {
  let held: number | undefined;
  try {
    const written = writeFileAtomic(file, data, {
      mode: expected.mode,
      beforeRename: () => {
        held = openSync(file, "r");
        if (fstatSync(held).ino !== expected.ino || prdDigest(file, held) !== expected.digest) return false;
        if (check && !check()) return false;
        return statSync(file).ino === expected.ino;
      },
    });
    if (!written || held === undefined) return { kind: "changed" };
    if (prdDigest(file, held) === expected.digest) return { kind: "replaced" };
    // A save in place went into the replaced file; its writer may still be writing.
    for (let attempt = 1; ; attempt++) {
      const text = Buffer.concat([...prdChunks(file, { fd: held })]).toString("utf8");
      if (storySpans(Buffer.from(text, "utf8")) || attempt >= WHOLE_ATTEMPTS) return { kind: "displaced", text };
      pauseSync(1);
    }
  } finally {
    if (held !== undefined) closeSync(held);
  }
}
