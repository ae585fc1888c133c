import { formatProblem, type Problem } from "@meshflow/core";
import type { Output } from "./output.js";

/** Prints problems on stderr, one per line: `<file>: <json-path>: <message>`. */
export function printProblems(output: Output, problems: readonly Problem[]): void {
  for (const problem of problems) output.err(formatProblem(problem));
}
