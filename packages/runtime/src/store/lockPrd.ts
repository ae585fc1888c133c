import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { acquireFileLock, type LockAttempt, MeshflowError, userCacheDir } from "@meshflow/core";
import { ensureStoreDir } from "./ensureStoreDir.js";

/** What a PRD lock records of its holder besides its pid. */
export interface PrdLockFacts {
  /** The run holding the PRD (or `reset-<pid>`, `enqueue-<pid>`). */
  runId: string;
  /** The command holding it when it is no run of this store (`flow enqueue --wait`). */
  command?: string;
}

/**
 * Takes the lock of a PRD file, so one PRD has one live run whatever store, folder or name each run
 * uses. Two locks are taken, both created exclusively and knowing their holder's pid:
 * - by path: `.<name>.lock` beside the file a symlink points to (the store's `locks/` folder when that
 *   folder cannot be written), which a run keeps while its write-back replaces the file;
 * - by identity: `prd-<device>-<inode>.lock` in the user's meshflow cache (`~/.cache/meshflow/locks`),
 *   so a hard link to the same PRD, under any name in any folder, is the same lock.
 *
 * Throws `prd_busy` naming the run (or command) and process that hold either; a lock whose process is
 * dead is taken over. Returns the release of both.
 */
export function lockPrd(prd: string, facts: PrdLockFacts | string, root: string): () => void {
  const holderFacts: PrdLockFacts = typeof facts === "string" ? { runId: facts } : facts;
  let real = resolve(prd);
  try {
    real = realpathSync(real);
  } catch {
    // A PRD that is gone is reported by whoever reads it; its lock name still follows its path.
  }
  const byPath = lockByPath(real, holderFacts, root);
  busyUnlessAcquired(prd, byPath);
  let byIdentity: { file: string; attempt: LockAttempt } | undefined;
  try {
    byIdentity = lockByIdentity(real, holderFacts, root);
    if (byIdentity) busyUnlessAcquired(prd, byIdentity);
  } catch (error) {
    if (byPath.attempt.acquired) byPath.attempt.release();
    throw error;
  }
  return () => {
    if (byIdentity?.attempt.acquired) byIdentity.attempt.release();
    if (byPath.attempt.acquired) byPath.attempt.release();
  };
}

function lockByPath(real: string, facts: PrdLockFacts, root: string): { file: string; attempt: LockAttempt } {
  const file = join(dirname(real), `.${basename(real)}.lock`);
  try {
    return { file, attempt: acquireFileLock(file, { ...facts }) };
  } catch (error) {
    if (!["ENOENT", "EACCES", "EPERM", "EROFS"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    const locks = ensureStoreDir(root, "locks");
    const inStore = join(locks, `${createHash("sha256").update(real).digest("hex").slice(0, 32)}.lock`);
    return { file: inStore, attempt: acquireFileLock(inStore, { ...facts, prd: real }) };
  }
}

/**
 * The lock named by the PRD's device and inode; undefined when the PRD is gone (whoever reads it says
 * so). It lives in the user's cache, which only its owner may write (the store's `locks/` when there is
 * none), so every run of this user on this machine finds it whatever its working folder.
 */
function lockByIdentity(
  real: string,
  facts: PrdLockFacts,
  root: string,
): { file: string; attempt: LockAttempt } | undefined {
  let id: string;
  try {
    const stat = statSync(real, { bigint: true });
    id = `${stat.dev}-${stat.ino}`;
  } catch {
    return undefined;
  }
  const folder = userCacheDir("locks") ?? ensureStoreDir(root, "locks");
  const file = join(folder, `prd-${id}.lock`);
  return { file, attempt: acquireFileLock(file, { ...facts, prd: real }) };
}

function busyUnlessAcquired(prd: string, lock: { file: string; attempt: LockAttempt }): void {
  const { attempt } = lock;
  if (attempt.acquired) return;
  const { holder } = attempt;
  const other = typeof holder.runId === "string" ? holder.runId : "unknown";
  const held = typeof holder.command === "string" ? holder.command : `run ${other}`;
  // A hard link or another name of the same file: say which name the holder runs.
  const named = typeof holder.prd === "string" && holder.prd !== resolve(prd) ? `, through ${holder.prd}` : "";
  const advice =
    typeof holder.command === "string"
      ? "wait for it to end"
      : `wait for it to end, or stop that process and \`flow resume ${other}\` later`;
  throw new MeshflowError("prd_busy", `${prd} is being run by ${held} (process ${holder.pid})${named}; ${advice}`, {
    details: { prd, runId: other, pid: holder.pid, lock: lock.file },
  });
}
