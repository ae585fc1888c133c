import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { MeshflowError } from "../../errors/MeshflowError.js";
import { formatJsonPath } from "../../json/jsonPath.js";
import { didYouMean } from "../../text/suggest.js";
import { readPrdOutline } from "./readPrdOutline.js";

/** One PRD of a folder, in the order a folder run takes them. */
export interface FolderPrd {
  /** Absolute path. */
  file: string;
  /** File name, e.g. `prd-auth.json`. */
  name: string;
  /** Absolute paths of the PRDs it depends on (its `dependsOn`). */
  dependsOn: string[];
}

/** True for the file names a folder run picks up: `prd-*.json` and `*.prd.json`. */
export function isPrdFileName(name: string): boolean {
  return (name.startsWith("prd-") && name.endsWith(".json")) || (name.endsWith(".prd.json") && name !== ".prd.json");
}

/** True when `path` is a folder (a folder run) rather than a PRD file. */
export function isPrdFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The PRDs of a folder (`prd-*.json`, `*.prd.json`) in run order: name order, except that a PRD comes
 * after every PRD its `dependsOn` names (relative to its folder). Throws `prd_invalid` naming the file
 * and JSON path for a dependency that is not a PRD of the folder, and for a dependency cycle.
 */
export function listPrdFolder(folder: string): FolderPrd[] {
  const dir = resolve(folder);
  const names = readdirSync(dir)
    .filter(isPrdFileName)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byFile = new Map<string, FolderPrd>();
  for (const name of names) {
    const file = join(dir, name);
    // Its own fields only; a file that is not a PRD is reported by its run.
    const dependsOn = (readPrdOutline(file, { stories: false })?.dependsOn ?? []).map((dep, i) => {
      const target = resolve(dirname(file), dep);
      if (!names.includes(basename(target)) || dirname(target) !== dir)
        throw new MeshflowError(
          "prd_invalid",
          `${file}: ${formatJsonPath(["dependsOn", i])}: "${dep}" is not a PRD of ${folder}${didYouMean(dep, names)}`,
          { details: { file, path: formatJsonPath(["dependsOn", i]) } },
        );
      return target;
    });
    byFile.set(file, { file, name, dependsOn });
  }
  const ordered = new Set<FolderPrd>();
  // `chain`: the PRDs whose dependencies are being visited; meeting one of them again is a cycle.
  const visit = (prd: FolderPrd, chain: string[]): void => {
    if (ordered.has(prd)) return;
    if (chain.includes(prd.name))
      throw new MeshflowError(
        "prd_invalid",
        `${prd.file}: $.dependsOn: dependency cycle ${[...chain, prd.name].join(" → ")}`,
        { details: { file: prd.file, path: "$.dependsOn" } },
      );
    for (const dep of prd.dependsOn) {
      const target = byFile.get(dep);
      if (target) visit(target, [...chain, prd.name]);
    }
    ordered.add(prd);
  };
  for (const prd of byFile.values()) visit(prd, []);
  return [...ordered];
}
