import { MAX_STEP, MIN_STEP } from "@meshflow/core";
import { z } from "zod";
import { dataFile, readDataFile } from "./readDataFile.js";

const CAPABILITY = z.string().regex(/^[a-z][a-z0-9_]*$/, "a capability id is lower_snake_case");

const StepNeedsSchema = z.strictObject({
  steps: z.record(
    z
      .string()
      .regex(/^\d+$/, "step keys are step numbers")
      .refine((k) => Number(k) >= MIN_STEP && Number(k) <= MAX_STEP, `a step is ${MIN_STEP}–${MAX_STEP}`),
    z.array(CAPABILITY).min(1),
  ),
});

/** Which capabilities each step needs from its servers (`data/step-capabilities.yaml`). */
export type StepNeeds = ReadonlyMap<number, readonly string[]>;

let loaded: StepNeeds | undefined;

/** The capabilities each step of the flow needs from its MCP servers; a step not listed needs none. */
export function stepNeeds(): StepNeeds {
  if (loaded) return loaded;
  const data = readDataFile(dataFile("step-capabilities.yaml"), StepNeedsSchema);
  loaded = new Map(Object.entries(data.steps).map(([step, caps]) => [Number(step), caps]));
  return loaded;
}
