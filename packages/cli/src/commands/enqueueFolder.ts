import { basename } from "node:path";
import { type FolderPrd, listPrdFolder, MeshflowError, readPrdOutline } from "@meshflow/core";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";
import { type EnqueueOptions, enqueueCommand } from "./enqueue.js";

/** True when every story of the PRD file has `passes: true` (false when it cannot be read). */
function allPassed(file: string): boolean {
  try {
    return readPrdOutline(file)?.stories.every((s) => s.passes) === true;
  } catch {
    return false;
  }
}

/**
 * `flow enqueue <folder>`: queues the folder's PRDs (`prd-*.json`, `*.prd.json`) in waves: first those
 * whose `dependsOn` PRDs have every story passed; with `--wait`, once a wave's runs finished and their
 * passes were written, the PRDs that waited on them. Without `--wait`, a PRD whose dependencies have not
 * passed is not queued (and says so). The exit code is the worst of the waves'.
 */
export async function enqueueFolderCommand(folder: string, options: EnqueueOptions, output: Output): Promise<ExitCode> {
  let pending: FolderPrd[] = listPrdFolder(folder);
  if (!pending.length)
    throw new MeshflowError("usage", `${folder}: no PRD files (prd-*.json, *.prd.json) in this folder`);
  let code: ExitCode = EXIT.ok;
  while (pending.length) {
    const ready = pending.filter((p) => p.dependsOn.every(allPassed));
    const waiting = pending.filter((p) => !ready.includes(p));
    if (ready.length) {
      const wave = await enqueueCommand(
        ready.map((p) => p.file),
        options,
        output,
      );
      if (wave !== EXIT.ok) code = wave;
    }
    if (!ready.length || !options.wait) {
      for (const p of waiting)
        output.err(
          `flow: ${p.name} not queued: it depends on ${p.dependsOn
            .filter((d) => !allPassed(d))
            .map((d) => basename(d))
            .join(
              ", ",
            )}, which has stories that have not passed${options.wait ? "" : " (with --wait it is queued once they passed)"}`,
        );
      if (waiting.length && code === EXIT.ok && options.wait) code = EXIT.failure;
      break;
    }
    pending = waiting;
  }
  return code;
}
