import { rmSync } from "node:fs";
import { writeFileAtomic } from "@meshflow/core";
import type { ExportPlan, PlannedFile } from "./planAgentExport.js";

/** The files of a plan that differ from the disk: what `--check` reports. */
export function outdatedFiles(plan: ExportPlan): PlannedFile[] {
  return plan.files.filter((file) => file.status !== "unchanged");
}

/**
 * Writes a plan: each new or changed file atomically (temp file + rename, parent folders created), stale
 * generated files removed; unchanged files are not touched. Returns the files it changed.
 */
export function writeExportPlan(plan: ExportPlan): PlannedFile[] {
  const changed = outdatedFiles(plan);
  for (const file of changed) {
    if (file.status === "remove") rmSync(file.path, { force: true });
    else if (file.content !== undefined) writeFileAtomic(file.path, file.content);
  }
  return changed;
}
