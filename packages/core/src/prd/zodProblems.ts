import type { z } from "zod";
import { formatJsonPath } from "../json/jsonPath.js";
import type { Problem } from "../problems/Problem.js";

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/** A zod error map that says "required, but missing" and "expected X, found Y" in plain words. */
export const plainErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return `required ${issue.expected} is missing`;
    return `expected ${issue.expected}, found ${describeValue(issue.input)}`;
  }
  if (issue.code === "too_small" || issue.code === "too_big") {
    const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
    const relation = issue.code === "too_small" ? (issue.inclusive ? ">=" : ">") : issue.inclusive ? "<=" : "<";
    if (issue.origin === "number")
      return `expected a number ${relation} ${String(bound)}, found ${describeValue(issue.input)}`;
    if (issue.origin === "array")
      return `expected an array with ${issue.code === "too_small" ? "at least" : "at most"} ${String(bound)} item(s)`;
    if (issue.origin === "string" && issue.code === "too_small" && bound === 1) return "expected a non-empty string";
  }
  return undefined;
};

/** Converts zod issues into located problems of `file`, under `basePath` segments. */
export function zodProblems(
  file: string,
  issues: readonly z.core.$ZodIssue[],
  basePath: readonly PropertyKey[] = [],
): Problem[] {
  return issues.map((issue) => ({
    file,
    path: formatJsonPath([...basePath, ...issue.path]),
    message: issue.message,
    severity: "error" as const,
  }));
}
