import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { didYouMean, MeshflowError } from "@meshflow/core";
import {
  type LoadedSpecialist,
  type LoadSpecialistsOptions,
  loadSpecialists,
  type Specialist,
} from "@meshflow/runtime";
import type { ExportSpecialist } from "../model/ExportSpecialist.js";

/** The file beside an agent's entry point whose text becomes the exported agent's instructions. */
export const INSTRUCTIONS_FILE = "README.md";

/**
 * A loaded specialist as the export sees it: its definition's data, and as instructions the README.md beside
 * its agent file (else its description).
 */
export function exportSpecialistOf(specialist: Specialist, file: string): ExportSpecialist {
  const readme = join(dirname(file), INSTRUCTIONS_FILE);
  const text = existsSync(readme) ? readFileSync(readme, "utf8").trim() : "";
  const { name, description, steps, skills, readOnly, tools, harnessTools } = specialist;
  return {
    name,
    description,
    ...(steps ? { steps } : {}),
    ...(skills ? { skills } : {}),
    ...(readOnly !== undefined ? { readOnly } : {}),
    ...(tools ? { tools } : {}),
    ...(harnessTools ? { harnessTools } : {}),
    instructions: text || description,
    instructionsFrom: text ? relative(process.cwd(), readme) || INSTRUCTIONS_FILE : "description",
  };
}

/** Every loaded specialist as {@link ExportSpecialist}s, sorted by name. */
export function exportSpecialists(loaded: ReadonlyMap<string, LoadedSpecialist>): ExportSpecialist[] {
  return [...loaded.values()]
    .map(({ specialist, file }) => exportSpecialistOf(specialist, file))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Loads specialists from agent folders (see `loadSpecialists`) for export. */
export async function loadExportSpecialists(
  paths: readonly string[],
  options: LoadSpecialistsOptions = {},
): Promise<ExportSpecialist[]> {
  return exportSpecialists(await loadSpecialists(paths, options));
}

/** The named specialists, in the order named; an unknown name throws `specialist_unknown` with suggestions. */
export function selectSpecialists(all: readonly ExportSpecialist[], names: readonly string[]): ExportSpecialist[] {
  return names.map((name) => {
    const found = all.find((s) => s.name === name);
    if (found) return found;
    const known = all.map((s) => s.name);
    throw new MeshflowError(
      "specialist_unknown",
      `unknown specialist "${name}"${didYouMean(name, known)}; loaded: ${known.join(", ") || "none"}`,
      { details: { specialist: name, known } },
    );
  });
}
