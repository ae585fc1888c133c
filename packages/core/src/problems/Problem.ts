/** One thing wrong with an input file, located precisely enough to fix without guessing. */
export interface Problem {
  /** The file, as the user named it (relative paths stay relative). */
  file: string;
  /** JSON path of the offending value, e.g. `$.userStories[2].mcpTools.step4`; `$` for the whole file. */
  path: string;
  /** What was expected and what was found. */
  message: string;
  /** Errors make the input unusable; warnings are reported but do not change the exit code. */
  severity: "error" | "warning";
}

/** Renders a problem as `<file>: <json-path>: <message>`. */
export function formatProblem(problem: Problem): string {
  const prefix = problem.severity === "warning" ? "warning: " : "";
  return `${problem.file}: ${problem.path}: ${prefix}${problem.message}`;
}

/** True when any problem is an error (warnings alone leave an input valid). */
export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === "error");
}
