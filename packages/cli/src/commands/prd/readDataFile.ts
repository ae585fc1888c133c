import { readFileSync } from "node:fs";
import { formatJsonPath, formatProblem, MeshflowError, packageFile, parseYaml } from "@meshflow/core";
import type { z } from "zod";

/** Where the data files of `flow prd` are: `data/` of @meshflow/cli. */
export function dataFile(name: string): string {
  return packageFile(import.meta.url, `data/${name}`);
}

/**
 * Reads a YAML data file and checks it against `schema`; a file that does not hold is an `internal`
 * error naming the file, each JSON path and what was expected (the data ships with `flow`).
 */
export function readDataFile<T extends z.ZodType>(file: string, schema: T): z.output<T> {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(file, "utf8"));
  } catch (cause) {
    throw new MeshflowError("internal", `${file}: $: not readable YAML: ${String(cause)}`, { cause });
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) =>
    formatProblem({ file, path: formatJsonPath(issue.path), message: issue.message, severity: "error" }),
  );
  throw new MeshflowError("internal", lines.join("\n"));
}
