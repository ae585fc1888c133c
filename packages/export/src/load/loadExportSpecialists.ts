import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { didYouMean, MeshflowError } from "@meshflow/core";
import type { Specialist } from "@meshflow/runtime";
import {
  type LoadedSpecialist,
  type LoadSpecialistsOptions,
  loadSpecialists,
  INSTRUCTIONS_FILE as MODEL_INSTRUCTIONS_FILE,
} from "@meshflow/runtime/host";
import type { ExportSpecialist } from "../model/ExportSpecialist.js";

/**
 * The file beside an agent's entry point whose text becomes the exported agent's instructions when its
 * definition has none: the same `instructions.md` a model gets (the README is for developers).
 */
const INSTRUCTIONS_FILE = MODEL_INSTRUCTIONS_FILE;

/** Where a specialist's user-facing instructions come from: its `instructions` field, `instructions.md` beside its agent file, else its description. */
function instructionsOf(specialist: Specialist, file: string): { text: string; from: string } {
  const beside = join(dirname(file), INSTRUCTIONS_FILE);
  const fileText = existsSync(beside) ? readFileSync(beside, "utf8").trim() : "";
  const declared = specialist.instructions?.trim();
  // `loadSpecialists` fills `instructions` from the file when the definition has none: name the file then.
  if (declared && declared !== fileText) return { text: declared, from: "instructions" };
  if (fileText) return { text: fileText, from: relative(process.cwd(), beside) || INSTRUCTIONS_FILE };
  return { text: specialist.description, from: "description" };
}

/**
 * A loaded specialist as the export sees it: its definition's data, and as instructions the text a model
 * gets (its `instructions` field, else `instructions.md` beside its agent file, else its description).
 */
function exportSpecialistOf(specialist: Specialist, file: string): ExportSpecialist {
  const { text, from } = instructionsOf(specialist, file);
  const { name, description, steps, skills, readOnly, tools, harnessTools } = specialist;
  return {
    name,
    description,
    ...(steps ? { steps } : {}),
    ...(skills ? { skills } : {}),
    ...(readOnly !== undefined ? { readOnly } : {}),
    ...(tools ? { tools } : {}),
    ...(harnessTools ? { harnessTools } : {}),
    instructions: text,
    instructionsFrom: from,
  };
}

/** Every loaded specialist as {@link ExportSpecialist}s, sorted by name. */
function exportSpecialists(loaded: ReadonlyMap<string, LoadedSpecialist>): ExportSpecialist[] {
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
