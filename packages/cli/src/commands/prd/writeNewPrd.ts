import { existsSync } from "node:fs";
import { join } from "node:path";
import { MeshflowError, writeFileAtomic } from "@meshflow/core";

/** The PRD `flow prd convert` and `flow prd new` write when no `--out` is given. */
export const DEFAULT_PRD = join("prd", "prd.json");

/** Refuses (`usage`, exit 2) to go on when `file` exists and `force` was not given: nothing is overwritten unasked. */
export function refuseExisting(file: string, force: boolean | undefined): void {
  if (!force && existsSync(file))
    throw new MeshflowError("usage", `${file} exists: give --force to replace it, or --out <file> to write another`, {
      details: { file },
    });
}

/**
 * Writes a PRD as pretty JSON, atomically (a temp file beside it, then a rename): a reader never sees
 * half of it. Without `force`, a file that appeared meanwhile is left alone (`usage`).
 */
export function writeNewPrd(file: string, prd: unknown, force: boolean | undefined): void {
  refuseExisting(file, force);
  const written = writeFileAtomic(file, `${JSON.stringify(prd, null, 2)}\n`, {
    beforeRename: () => force === true || !existsSync(file),
  });
  if (!written) refuseExisting(file, false);
}
