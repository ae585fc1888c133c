import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isPrdFolder, listPrdFolder, MeshflowError } from "@meshflow/core";

/** Names a folder's files a folder run would skip, as a hint for a folder with no PRD file names. */
function otherJsonFiles(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((name) => name.endsWith(".json") && !name.endsWith(".schema.json"))
      .slice(0, 5);
  } catch {
    return [];
  }
}

/**
 * The PRD files a command taking `<prd.json | folder>` works on: the file itself, or a folder's PRDs
 * (`prd-*.json`, `*.prd.json`) in the order `flow run <folder>` takes them. A folder without any is a
 * `usage` error naming the JSON files it does hold, so `prd/prd.json` is given as a file.
 */
export function prdTargets(given: string): { folder: boolean; files: string[] } {
  if (!isPrdFolder(given)) return { folder: false, files: [given] };
  const files = listPrdFolder(given).map((p) => p.file);
  if (!files.length) {
    const other = otherJsonFiles(given);
    const hint = other.length
      ? `; it holds ${other.join(", ")}: give a PRD as a file (${join(given, other[0] ?? "")}) or name it prd-<name>.json`
      : "";
    throw new MeshflowError("usage", `${given}: no PRD files (prd-*.json, *.prd.json) in this folder${hint}`);
  }
  return { folder: true, files };
}

/**
 * Refuses a folder where a command takes exactly one PRD file (`usage`), naming the folder's PRDs, instead
 * of the `EISDIR` reading it would give.
 */
export function assertPrdFile(given: string, command: string): void {
  if (!isPrdFolder(given)) return;
  let names: string[] = [];
  try {
    names = listPrdFolder(given).map((p) => p.name);
  } catch {
    // An unreadable folder or a broken dependsOn: the folder is still not a file, which is the point here.
  }
  const listed = names.length ? ` (its PRDs: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""})` : "";
  throw new MeshflowError(
    "usage",
    `${given} is a folder${listed}; ${command} takes one PRD file: give each file on its own`,
  );
}
