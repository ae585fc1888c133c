import { join } from "node:path";
import { peekFileLock } from "@meshflow/core/startup";
import { lockBesidePrd, lockByIdentityFile, lockInStore, prdBusy, realPrdPath, userLockDir } from "./prdLockFiles.js";

/**
 * Throws `prd_busy` when a live process holds a lock of the PRD (see `lockPrd`), without taking one:
 * what `flow run` asks before it loads the runtime and starts servers. The run still takes the locks
 * itself when it starts; this only answers early what it would answer late.
 */
export function assertPrdFree(prd: string, storeRoot: string): void {
  const real = realPrdPath(prd);
  const locks = join(storeRoot, "locks");
  const identityFolder = userLockDir() ?? locks;
  const files = [lockBesidePrd(real), lockInStore(locks, real), lockByIdentityFile(real, identityFolder)];
  for (const file of files) {
    const holder = file ? peekFileLock(file) : undefined;
    if (file && holder) throw prdBusy(prd, file, holder);
  }
}
