import { acquireFileLock, type LockAttempt } from "@meshflow/core";
import { ensureStoreDir } from "./ensureStoreDir.js";
import { lockBesidePrd, lockByIdentityFile, lockInStore, prdBusy, realPrdPath, userLockDir } from "./prdLockFiles.js";

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
  const real = realPrdPath(prd);
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
  const file = lockBesidePrd(real);
  try {
    return { file, attempt: acquireFileLock(file, { ...facts }) };
  } catch (error) {
    if (!["ENOENT", "EACCES", "EPERM", "EROFS"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    const inStore = lockInStore(ensureStoreDir(root, "locks"), real);
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
  const folder = userLockDir();
  const file = lockByIdentityFile(real, folder ?? ensureStoreDir(root, "locks"));
  if (!file) return undefined;
  return { file, attempt: acquireFileLock(file, { ...facts, prd: real }) };
}

function busyUnlessAcquired(prd: string, lock: { file: string; attempt: LockAttempt }): void {
  if (!lock.attempt.acquired) throw prdBusy(prd, lock.file, lock.attempt.holder);
}
