import { didYouMean, MeshflowError } from "@meshflow/core";
import { AGENT_HARNESSES, OUTPUT_FORMATS } from "./harnessNames.js";

/** One of {@link AGENT_HARNESSES}: where an exported agent runs. */
export type AgentHarness = (typeof AGENT_HARNESSES)[number];

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Parses a harness name; anything else throws `harness_unknown` with the known names. */
export function parseHarness(name: string): AgentHarness {
  if ((AGENT_HARNESSES as readonly string[]).includes(name)) return name as AgentHarness;
  throw new MeshflowError(
    "harness_unknown",
    `unknown harness "${name}"${didYouMean(name, AGENT_HARNESSES)}; known: ${AGENT_HARNESSES.join(", ")}`,
    { details: { harness: name, known: [...AGENT_HARNESSES] } },
  );
}

/** Parses an output format; anything else throws `usage`. */
export function parseFormat(name: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(name)) return name as OutputFormat;
  throw new MeshflowError("usage", `unknown format "${name}"; expected one of ${OUTPUT_FORMATS.join(", ")}`);
}
