import { MAX_STEP, MIN_STEP, stepPurpose } from "@meshflow/core";

/** The steps of the flow and what each is for, as `--help` text: `mavenSteps` numbers mean these. */
export function stepPurposesHelp(): string {
  const lines = ["The steps (a story's mavenSteps), as a model working them is told:"];
  for (let step = MIN_STEP; step <= MAX_STEP; step++) lines.push(`  ${String(step).padStart(2)}  ${stepPurpose(step)}`);
  return lines.join("\n");
}
