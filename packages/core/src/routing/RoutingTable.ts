import { readFileSync } from "node:fs";
import { z } from "zod";
import { MeshflowError } from "../errors/MeshflowError.js";
import { packageFile } from "../fs/packageFile.js";
import { formatJsonPath } from "../json/jsonPath.js";
import { MAX_STEP, MIN_STEP } from "../prd/PrdSchema.js";
import { formatProblem, type Problem } from "../problems/Problem.js";
import { parseYaml } from "../yaml/parseYaml.js";

const SPECIALIST_NAME = /^[a-z][a-z0-9-]*$/;

/** The data file of a routing table (YAML or JSON). `null` removes a step from the table it overrides. */
const RoutingFileSchema = z.strictObject({
  steps: z.record(
    z.string().regex(/^\d+$/, "step keys are step numbers"),
    z.string().regex(SPECIALIST_NAME, "a specialist name is lower-case kebab-case").nullable(),
  ),
});

/** Which specialist runs which step, and where that table came from. */
export interface RoutingTable {
  readonly steps: ReadonlyMap<number, string>;
  /** Files the table was built from, default first. */
  readonly sources: readonly string[];
}

const DEFAULT_FILE = packageFile(import.meta.url, "data/routing.default.yaml");

function readRoutingFile(file: string, displayName: string): z.infer<typeof RoutingFileSchema> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new MeshflowError("file_not_found", `${displayName}: cannot read routing file`, { cause });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new MeshflowError("routing_invalid", `${displayName}: $: not valid YAML or JSON: ${String(cause)}`, {
      cause,
    });
  }
  const parsed = RoutingFileSchema.safeParse(data);
  if (!parsed.success) {
    const problems: Problem[] = parsed.error.issues.map((issue) => ({
      file: displayName,
      path: formatJsonPath(issue.path),
      message: issue.message,
      severity: "error",
    }));
    throw new MeshflowError("routing_invalid", problems.map(formatProblem).join("\n"), {
      details: { problems },
    });
  }
  for (const key of Object.keys(parsed.data.steps)) {
    const n = Number(key);
    if (n < MIN_STEP || n > MAX_STEP) {
      const problem: Problem = {
        file: displayName,
        path: formatJsonPath(["steps", key]),
        message: `step ${n} is outside ${MIN_STEP}–${MAX_STEP}`,
        severity: "error",
      };
      throw new MeshflowError("routing_invalid", formatProblem(problem), {
        details: { problems: [problem] },
      });
    }
  }
  return parsed.data;
}

/**
 * Loads the routing table: the shipped default, with an override file merged over it when given.
 *
 * @example
 * const routing = loadRoutingTable({ overrideFile: "flow.routing.yaml" });
 * routing.steps.get(5); // "quality-agent"
 */
export function loadRoutingTable(options: { overrideFile?: string | undefined } = {}): RoutingTable {
  const steps = new Map<number, string>();
  const sources = ["default"];
  for (const [key, name] of Object.entries(readRoutingFile(DEFAULT_FILE, "routing.default.yaml").steps)) {
    if (name) steps.set(Number(key), name);
  }
  if (options.overrideFile) {
    const override = readRoutingFile(options.overrideFile, options.overrideFile);
    for (const [key, name] of Object.entries(override.steps)) {
      if (name === null) steps.delete(Number(key));
      else steps.set(Number(key), name);
    }
    sources.push(options.overrideFile);
  }
  return { steps, sources };
}

/** The distinct specialist names a routing table mentions, in step order. */
export function routedSpecialists(routing: RoutingTable): string[] {
  return [...new Set([...routing.steps.entries()].sort(([a], [b]) => a - b).map(([, name]) => name))];
}
