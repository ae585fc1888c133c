import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { type LockHolder, MeshflowError, userCacheDir } from "@meshflow/core/startup";

// The names of a PRD's two locks and the `prd_busy` refusal, apart from taking them (lockPrd.ts) so a
// command can ask whether a PRD is free before it loads the rest of the runtime (assertPrdFree.ts).

/** The PRD's real path (symlinks followed); its resolved path when it is gone. */
export function realPrdPath(prd: string): string {
  const path = resolve(prd);
  try {
    return realpathSync(path);
  } catch {
    // A PRD that is gone is reported by whoever reads it; its lock name still follows its path.
    return path;
  }
}

/** The lock by path: `.<name>.lock` beside the file a symlink points to. */
export const lockBesidePrd = (real: string): string => join(dirname(real), `.${basename(real)}.lock`);

/** The lock by path when the PRD's folder cannot be written: in the store's `locks/` folder. */
export const lockInStore = (locks: string, real: string): string =>
  join(locks, `${createHash("sha256").update(real).digest("hex").slice(0, 32)}.lock`);

/**
 * The lock by identity, named by the PRD's device and inode in `folder` (the user's cache, else the
 * store's `locks/`); undefined when the PRD is gone.
 */
export function lockByIdentityFile(real: string, folder: string): string | undefined {
  try {
    const stat = statSync(real, { bigint: true });
    return join(folder, `prd-${stat.dev}-${stat.ino}.lock`);
  } catch {
    return undefined;
  }
}

/** The user's cache folder of identity locks (undefined when there is none to trust). */
export const userLockDir = (): string | undefined => userCacheDir("locks");

/** `prd_busy`: `prd` is held by `holder` through the lock file `lock`. */
export function prdBusy(prd: string, lock: string, holder: LockHolder): MeshflowError {
  const other = typeof holder.runId === "string" ? holder.runId : "unknown";
  const held = typeof holder.command === "string" ? holder.command : `run ${other}`;
  // A hard link or another name of the same file: say which name the holder runs.
  const named = typeof holder.prd === "string" && holder.prd !== resolve(prd) ? `, through ${holder.prd}` : "";
  const advice =
    typeof holder.command === "string"
      ? "wait for it to end"
      : `wait for it to end, or stop that process and \`flow resume ${other}\` later`;
  return new MeshflowError("prd_busy", `${prd} is being run by ${held} (process ${holder.pid})${named}; ${advice}`, {
    details: { prd, runId: other, pid: holder.pid, lock },
  });
}
