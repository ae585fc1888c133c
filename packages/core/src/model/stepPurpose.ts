import { readFileSync } from "node:fs";
import { z } from "zod";
import { MeshflowError } from "../errors/MeshflowError.js";
import { packageFile } from "../fs/packageFile.js";
import { parseYaml } from "../yaml/parseYaml.js";

const PURPOSES_FILE = packageFile(import.meta.url, "data/step-purposes.yaml");

const StepPurposesSchema = z.strictObject({ steps: z.record(z.string().regex(/^\d+$/), z.string().min(1)) });

let purposes: ReadonlyMap<number, string> | undefined;

function load(): ReadonlyMap<number, string> {
  const parsed = StepPurposesSchema.safeParse(parseYaml(readFileSync(PURPOSES_FILE, "utf8")));
  if (!parsed.success)
    throw new MeshflowError("internal", `${PURPOSES_FILE}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return new Map(Object.entries(parsed.data.steps).map(([k, v]) => [Number(k), v]));
}

/** What a step of the flow is for, as a model is told (`data/step-purposes.yaml`). */
export function stepPurpose(step: number): string {
  purposes ??= load();
  return purposes.get(step) ?? `Step ${step} of the flow.`;
}
