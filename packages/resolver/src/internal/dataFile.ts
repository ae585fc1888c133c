import { readFileSync } from "node:fs";
import { type ErrorCode, formatJsonPath, formatProblem, MeshflowError, type Problem, parseYaml } from "@meshflow/core";
import type { z } from "zod";

/** A located problem of a data file, as a {@link Problem}. */
export function dataProblem(file: string, path: readonly PropertyKey[], message: string): Problem {
  return { file, path: formatJsonPath(path), message, severity: "error" };
}

/** A zod issue in plain words; a bad record key says what a key must look like. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_key" && issue.issues.length)
    return `invalid key: ${issue.issues.map((inner) => inner.message).join("; ")}`;
  if (issue.code === "invalid_type") {
    // `input` is present because every parse here passes `reportInput: true`
    if (issue.input === undefined) return `required ${issue.expected} is missing`;
    const found = issue.input === null ? "null" : Array.isArray(issue.input) ? "an array" : typeof issue.input;
    return `expected ${issue.expected}, found ${found}`;
  }
  return issue.message;
}

/** Throws `code` with every problem, one `<file>: <path>: <message>` per line. */
export function throwProblems(code: ErrorCode, problems: readonly Problem[]): never {
  throw new MeshflowError(code, problems.map(formatProblem).join("\n"), { details: { problems } });
}

/** Reads text, turning a missing or unreadable file into `file_not_found` that names what the file is for. */
export function readText(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${file}: cannot read ${what}`, { cause, details: { file } });
  }
}

/**
 * Parses YAML or JSON text (YAML is a superset) and validates it with `schema`; every problem names the
 * file and the JSON path.
 */
export function parseDataText<S extends z.ZodType>(text: string, file: string, schema: S, code: ErrorCode): z.infer<S> {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new MeshflowError(code, `${file}: $: not valid YAML or JSON: ${String(cause)}`, { cause });
  }
  const parsed = schema.safeParse(data, { reportInput: true });
  if (!parsed.success)
    throwProblems(
      code,
      parsed.error.issues.map((issue) => dataProblem(file, issue.path, issueMessage(issue))),
    );
  return parsed.data;
}

/** Reads and validates a YAML or JSON data file. */
export function readDataFile<S extends z.ZodType>(file: string, schema: S, code: ErrorCode, what: string): z.infer<S> {
  return parseDataText(readText(file, what), file, schema, code);
}
