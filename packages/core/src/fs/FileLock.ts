import { closeSync, constants, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { processAlive } from "./processAlive.js";

/** What a lock file says about its holder: its pid, plus whatever the taker recorded (run id…). */
export interface LockHolder {
  pid: number;
  [key: string]: unknown;
}

/** The result of {@link acquireFileLock}: the lock, or who holds it. */
export type LockAttempt = { acquired: true; release: () => void } | { acquired: false; holder: LockHolder };

function readHolder(file: string): { text: string; holder: LockHolder | undefined } | undefined {
  let text: string;
  try {
    // Not through a link: a lock planted as a link to another file is no holder's, and is taken over
    // (the link itself is moved aside and removed, never what it points to).
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") return { text: "", holder: undefined };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { text, holder: undefined };
  }
  // An old-style lock holds the bare pid.
  if (typeof parsed === "number") return { text, holder: { pid: parsed } };
  const pid = (parsed as { pid?: unknown } | null)?.pid;
  return { text, holder: typeof pid === "number" ? (parsed as LockHolder) : undefined };
}

/**
 * Who holds a lock file now, without taking it: the holder when its process is alive and is not this
 * one; undefined when the file is absent, unreadable or stale (a taker would take it over).
 */
export function peekFileLock(file: string): LockHolder | undefined {
  const holder = readHolder(file)?.holder;
  return holder && holder.pid !== process.pid && processAlive(holder.pid) ? holder : undefined;
}

/**
 * Takes a lock file atomically: the holder's facts are written to a temp file that is then hard-linked
 * to `file` (create-exclusive, and never seen half-written). A lock whose process is dead, or whose
 * content is unreadable, is stale and taken over; `reclaimOwnPid` also takes over a lock of this very
 * process. The takeover moves the stale file aside first and checks it is the one judged stale, so two
 * processes taking over the same stale lock cannot both win.
 */
export function acquireFileLock(
  file: string,
  facts: Record<string, unknown> = {},
  options: { reclaimOwnPid?: boolean } = {},
): LockAttempt {
  const content = `${JSON.stringify({ ...facts, pid: process.pid })}\n`;
  const temp = `${file}.${process.pid}.taking`;
  // A leftover of a dead process of the same pid is ours to replace; a link planted there is removed,
  // not written through: the temp file is created exclusively, never following a link.
  rmSync(temp, { force: true });
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        linkSync(temp, file);
        let released = false;
        return {
          acquired: true,
          release: () => {
            if (released) return;
            released = true;
            // Only our own lock is removed: a lock someone took over after judging us dead stays.
            if (readHolder(file)?.text === content) rmSync(file, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const seen = readHolder(file);
      if (!seen) continue;
      const { holder } = seen;
      const own = holder?.pid === process.pid;
      if (holder && processAlive(holder.pid) && !(own && options.reclaimOwnPid)) return { acquired: false, holder };
      const aside = `${file}.${process.pid}.stale`;
      try {
        renameSync(file, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      if (readHolder(aside)?.text !== seen.text) {
        // Someone else replaced the stale lock in between: that one is live, put it back.
        try {
          linkSync(aside, file);
        } catch {
          // A third process holds it now; it is theirs.
        }
      }
      rmSync(aside, { force: true });
    }
    const last = readHolder(file)?.holder;
    return { acquired: false, holder: last ?? { pid: 0 } };
  } finally {
    rmSync(temp, { force: true });
  }
}
