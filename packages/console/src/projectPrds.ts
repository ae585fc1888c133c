import { type Dirent, lstatSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MeshflowError, readPrdSync } from "@meshflow/core";

/** A PRD file of the project, as the start form offers it. */
export interface ProjectPrd {
  /** Relative to the project folder, with `/`. */
  path: string;
  project: string;
  /** Story ids in file order (the first {@link PrdSearchBounds.maxIds}). */
  stories: string[];
  /** Stories in the file. */
  storyCount: number;
}

/** How far the console looks for the project's PRDs (`GET /api/prds`, the Start a run form). */
export interface PrdSearchBounds {
  /** Folders below the project folder looked in (0: the project folder only). */
  depth: number;
  /** Most PRDs listed. */
  maxPrds: number;
  /** Most `.json` files looked at while searching. */
  maxRead: number;
  /** Largest file read as a candidate, in bytes. */
  maxBytes: number;
  /** Story ids listed of each PRD (the first ones, in file order). */
  maxIds: number;
}

/**
 * The default bounds: four folders deep, 200 PRDs, 2,000 files looked at, 8 MiB a file, 500 story ids a
 * PRD; the list is built while `GET /api/prds` waits, so it stays quick in a large project.
 */
export const DEFAULT_PRD_SEARCH: Readonly<PrdSearchBounds> = {
  depth: 4,
  maxPrds: 200,
  maxRead: 2_000,
  maxBytes: 8 * 1024 * 1024,
  maxIds: 500,
};

/** What a bound left out of a {@link PrdListing}. */
export interface PrdsSkipped {
  /** More PRDs than `maxPrds` were found: the search stopped at the first one past the bound. */
  prds: boolean;
  /** `maxRead` files were looked at and at least one more `.json` file was left unread. */
  unread: boolean;
  /** Files over `maxBytes`, not read. */
  tooLarge: number;
  /** Their paths (the first {@link TOO_LARGE_PATHS}), relative to the project folder. */
  tooLargePaths: string[];
  /** Folders `depth` folders down whose contents were not looked in. */
  deeperFolders: number;
}

/** `GET /api/prds`: the project's PRDs, the bounds they were looked for within, and what those left out. */
export interface PrdListing {
  root: string;
  prds: ProjectPrd[];
  bounds: PrdSearchBounds;
  /** `.json` files looked at. */
  read: number;
  /** A bound left something out: see `skipped`. */
  truncated: boolean;
  skipped: PrdsSkipped;
}

/** Folders never looked in: dependencies, build output, version control, the run store. */
const SKIPPED = new Set(["node_modules", "dist", "build", "coverage", "test-artifacts"]);
/** Paths of files over the size bound named in a listing. */
const TOO_LARGE_PATHS = 20;

/** A candidate that is not read: over the byte bound, or not a regular file (a FIFO would block the read). */
type Candidate = { prd: ProjectPrd } | { tooLarge: true } | undefined;

/**
 * A `.json` file read as a PRD through `@meshflow/core`'s reader: a chunk at a time, each story split off
 * and parsed on its own (only its id kept), the file's own fields parsed with the stories left out. A
 * file that is not strict JSON with a `userStories` array is no PRD.
 */
function asPrd(file: string, root: string, bounds: PrdSearchBounds): Candidate {
  const ids: string[] = [];
  let count = 0;
  let head: unknown;
  try {
    const stat = lstatSync(file);
    if (!stat.isFile()) return undefined;
    if (stat.size > bounds.maxBytes) return { tooLarge: true };
    const onStory = (story: unknown) => {
      count++;
      const id = story && typeof story === "object" ? (story as { id?: unknown }).id : undefined;
      if (typeof id === "string" && ids.length < bounds.maxIds) ids.push(id);
    };
    // The run itself counts stories against its own limit; the byte bound keeps this read short.
    const limits = { maxBytes: bounds.maxBytes, maxStories: Number.MAX_SAFE_INTEGER };
    head = readPrdSync(file, { limits, whole: false, onStory }).head;
  } catch (error) {
    // A file that grew past the bound since its size was read.
    if (error instanceof MeshflowError && error.code === "prd_too_large") return { tooLarge: true };
    return undefined;
  }
  if (!head || typeof head !== "object") return undefined;
  const { project } = head as { project?: unknown };
  return {
    prd: {
      path: relative(root, file).split(sep).join("/"),
      project: typeof project === "string" ? project : "",
      stories: ids,
      storyCount: count,
    },
  };
}

/**
 * The PRD files (JSON with a `userStories` list) in the project folder within `bounds` (default
 * {@link DEFAULT_PRD_SEARCH}), in path order, and what the bounds left out. Hidden folders,
 * dependencies and build output are skipped; symbolic links are never followed, so nothing outside
 * the project is listed.
 */
export function listProjectPrds(root: string, bounds: PrdSearchBounds = DEFAULT_PRD_SEARCH): PrdListing {
  const prds: ProjectPrd[] = [];
  const skipped: PrdsSkipped = { prds: false, unread: false, tooLarge: 0, tooLargePaths: [], deeperFolders: 0 };
  let read = 0;
  let done = false;
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (done) return;
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (SKIPPED.has(entry.name)) continue;
        if (depth < bounds.depth) walk(path, depth + 1);
        else skipped.deeperFolders++;
      } else if (entry.isFile() && entry.name.endsWith(".json")) {
        if (read >= bounds.maxRead) {
          skipped.unread = true;
          done = true;
          return;
        }
        read++;
        const found = asPrd(path, root, bounds);
        if (found && "tooLarge" in found) {
          skipped.tooLarge++;
          if (skipped.tooLargePaths.length < TOO_LARGE_PATHS)
            skipped.tooLargePaths.push(relative(root, path).split(sep).join("/"));
        } else if (found && prds.length >= bounds.maxPrds) {
          // One PRD past the bound is enough to say that there are more.
          skipped.prds = true;
          done = true;
        } else if (found) prds.push(found.prd);
      }
    }
  };
  walk(root, 0);
  const truncated = skipped.prds || skipped.unread || skipped.tooLarge > 0 || skipped.deeperFolders > 0;
  return { root, prds, bounds: { ...bounds }, read, truncated, skipped };
}

/**
 * The absolute path of a PRD the start form names (relative to the project folder): `usage` unless it
 * is a `.json` file inside the project, reached without a symbolic link, holding `userStories`, and
 * within the byte bound of `bounds`.
 */
export function projectPrd(root: string, given: string, bounds: PrdSearchBounds = DEFAULT_PRD_SEARCH): string {
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
  const found = asPrd(file, root, bounds);
  if (found && "tooLarge" in found)
    throw fail(
      `is larger than ${bounds.maxBytes} bytes, the most the console reads of a PRD file; run flow run ${rel} from a terminal`,
    );
  if (!found) throw fail("is not a PRD (a JSON object with userStories)");
  return file;
}
