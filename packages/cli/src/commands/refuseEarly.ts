import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isMeshflowError, MeshflowError } from "@meshflow/core/startup";
import { assertPrdFree } from "@meshflow/runtime/prdLock";
import { type ExitCode, exitCodeFor } from "../exitCodes.js";
import type { Output } from "../output.js";

/** What of `flow run`'s options the early checks read. */
export interface EarlyRunOptions {
  store?: string;
  dryRun?: boolean;
  json?: boolean;
  rerunFailed?: string;
  runId?: string;
}

/**
 * The refusals of `flow run` that need no server and no validated PRD, answered before the run's
 * modules load and its servers start (a busy PRD is refused in a fraction of the time a run needs to
 * get that far): a PRD argument with `--rerun-failed`, none without it, a PRD file that is not there,
 * `--run-id` with a folder, and a PRD another live process runs (`prd_busy`). The run makes every one
 * of these checks again where it always did; what passes here is only not refused early.
 */
function refuseEarly(given: string | undefined, options: EarlyRunOptions): void {
  if (options.rerunFailed) {
    if (given)
      throw new MeshflowError("usage", "--rerun-failed <runId> runs that run's PRD: give no PRD argument with it");
    return;
  }
  if (!given)
    throw new MeshflowError("usage", "flow run needs a PRD file or a folder of PRDs (or --rerun-failed <runId>)");
  let folder: boolean;
  try {
    folder = statSync(given).isDirectory();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ENOENT") return;
    throw new MeshflowError("file_not_found", `${given}: cannot read PRD: no such file`, {
      cause,
      details: { file: given },
    });
  }
  if (folder) {
    if (options.runId && !options.dryRun) throw new MeshflowError("usage", "--run-id takes one PRD file, not a folder");
    return;
  }
  // A dry run takes no lock: it may look at a PRD while another process runs it.
  if (!options.dryRun) assertPrdFree(given, resolve(options.store ?? process.env.FLOW_HOME ?? ".flow"));
}

/**
 * {@link refuseEarly}, printed as a run's refusal is (one `{"error": …}` line with `--json`, the
 * message on stderr): its exit code, or undefined when nothing was refused.
 */
export function refusedEarly(
  given: string | undefined,
  options: EarlyRunOptions,
  output: Output,
): ExitCode | undefined {
  try {
    refuseEarly(given, options);
    return undefined;
  } catch (error) {
    if (!isMeshflowError(error)) throw error;
    if (options.json) output.out(JSON.stringify({ error: { code: error.code, message: error.message } }));
    output.err(`flow: ${error.message}`);
    return exitCodeFor(error.code);
  }
}
