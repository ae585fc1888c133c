import type { MarkResult } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, plural, printJson, storyList } from "../output.js";

/** Options of `flow mark`. */
export interface MarkOptions {
  store?: string;
  json?: boolean;
}

/**
 * `flow mark <runId>`: writes the `passes: true` marks of the stories a run passed into its PRD (those
 * saves dropped while it ran). Exit 0 when every mark is in the PRD, 1 when some could not be
 * written (the message says which and why), 2 for an unknown run.
 */
export async function markCommand(runId: string, options: MarkOptions, output: Output): Promise<ExitCode> {
  const { FileRunStore, markRun } = await import("@meshflow/runtime/host");
  return printMarks(await markRun(new FileRunStore(options.store), runId), options, output);
}

/** Reports what `flow mark` (or `flow resume` of a finished run) wrote; the exit code. */
export function printMarks(result: MarkResult, options: { json?: boolean }, output: Output): ExitCode {
  const { prd, runId, passed, marked, unmarked, reason } = result;
  if (options.json) printJson(output, { runId, prd, passed: passed.length, marked, unmarked, reason: reason ?? null });
  else if (!passed.length) output.out(`run ${runId} passed no story; ${prd} unchanged`);
  else if (marked.length)
    output.out(
      `${prd}: marked ${storyList(marked)} passed (run ${runId}); ${passed.length - marked.length - unmarked.length} already were`,
    );
  else if (!unmarked.length)
    output.out(`${prd}: the ${plural(passed.length, "story", "stories")} run ${runId} passed are marked already`);
  if (!unmarked.length) return EXIT.ok;
  output.err(`flow: ${prd}: ${storyList(unmarked)} not marked passed: ${reason ?? "unknown"}`);
  return EXIT.failure;
}
