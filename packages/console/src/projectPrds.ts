import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MeshflowError } from "@meshflow/core";

/** A PRD file of the project, as the start form offers it. */
export interface ProjectPrd {
  /** Relative to the project folder, with `/`. */
  path: string;
  project: string;
  /** Story ids in file order (the first {@link MAX_IDS}). */
  stories: string[];
  /** Stories in the file. */
  storyCount: number;
}

/** Folders never looked in: dependencies, build output, version control, the run store. */
const SKIPPED = new Set(["node_modules", "dist", "build", "coverage", "test-artifacts"]);
/** How deep below the project folder PRDs are looked for. */
const MAX_DEPTH = 4;
/** Most PRDs listed, and most files read while looking. */
const MAX_PRDS = 200;
const MAX_READ = 2_000;
/** Largest file read as a candidate. */
const MAX_BYTES = 8 * 1024 * 1024;
const MAX_IDS = 500;

function asPrd(file: string, root: string): ProjectPrd | undefined {
  let data: unknown;
  try {
    if (lstatSync(file).size > MAX_BYTES) return undefined;
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (!data || typeof data !== "object") return undefined;
  const { userStories, project } = data as { userStories?: unknown; project?: unknown };
  if (!Array.isArray(userStories)) return undefined;
  const ids = userStories
    .map((s) => (s && typeof s === "object" ? (s as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === "string");
  return {
    path: relative(root, file).split(sep).join("/"),
    project: typeof project === "string" ? project : "",
    stories: ids.slice(0, MAX_IDS),
    storyCount: userStories.length,
  };
}

/**
 * The PRD files (JSON with a `userStories` list) in the project folder, at most four folders deep,
 * in path order. Hidden folders, dependencies and build output are skipped; symbolic links are
 * never followed, so nothing outside the project is listed.
 */
export function listProjectPrds(root: string): ProjectPrd[] {
  const found: ProjectPrd[] = [];
  let read = 0;
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= MAX_PRDS || read >= MAX_READ) return;
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH && !SKIPPED.has(entry.name)) walk(path, depth + 1);
      } else if (entry.isFile() && entry.name.endsWith(".json")) {
        read++;
        const prd = asPrd(path, root);
        if (prd) found.push(prd);
      }
    }
  };
  walk(root, 0);
  return found;
}

/**
 * The absolute path of a PRD the start form names (relative to the project folder): `usage` unless it
 * is a `.json` file inside the project, reached without a symbolic link, holding `userStories`.
 */
export function projectPrd(root: string, given: string): string {
  const fail = (why: string) =>
    new MeshflowError("usage", `prd "${given}": ${why} (choose one of GET /api/prds, relative to ${root})`);
  if (isAbsolute(given)) throw fail("give the path relative to the project folder");
  const file = resolve(root, given);
  const rel = relative(root, file);
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) throw fail("is outside the project folder");
  if (!file.endsWith(".json")) throw fail("is not a .json file");
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    throw new MeshflowError("file_not_found", `prd "${given}": no such file in ${root}`);
  }
  if (real !== join(realpathSync(root), rel)) throw fail("goes through a symbolic link");
  if (!asPrd(file, root)) throw fail("is not a PRD (a JSON object with userStories)");
  return file;
}
