import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMeshflowError, MeshflowError, userCacheDir } from "@meshflow/core";
import { isSpecialist, type Specialist } from "./defineSpecialist.js";

/** File names of a specialist folder's entry point, in lookup order. */
const AGENT_ENTRY_FILES = ["agent.ts", "agent.mts", "agent.js", "agent.mjs"] as const;

/** A specialist and the file it came from. */
export interface LoadedSpecialist {
  specialist: Specialist;
  file: string;
}

/** Options of {@link loadSpecialists}. */
export interface LoadSpecialistsOptions {
  /** Paths that may be missing without an error (the default `agents/` folder). */
  optional?: readonly string[];
  /**
   * Folders of built-in specialists (the ones `@meshflow/cli` ships), loaded after `paths`: each of
   * their specialist folders only when `paths` defined no specialist of that folder's name, so a
   * project's own `agents/<name>` replaces the built-in of that name. Missing folders are skipped.
   * Their JavaScript entries load with Node's own `import()` (they are compiled when the package is
   * built, and resolve `@meshflow/runtime` as the package does); TypeScript ones go through jiti.
   */
  builtin?: readonly string[];
}

function entryOf(folder: string): string | undefined {
  for (const name of AGENT_ENTRY_FILES) {
    const file = join(folder, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** Every agent entry file a path names: a file, a specialist folder, or a folder of specialist folders. */
function entriesOf(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  const own = entryOf(path);
  if (own) return [own];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules")
    .map((d) => entryOf(join(path, d.name)))
    .filter((f): f is string => f !== undefined)
    .sort();
}

type Importer = (file: string) => Promise<unknown>;

/**
 * Where transpiled agent files are cached, so a run does not transpile every specialist again:
 * `FLOW_AGENT_CACHE` (a folder, or `off`), else `$XDG_CACHE_HOME/meshflow/agents`, else
 * `~/.cache/meshflow/agents`. The folder is the user's own (mode 0700): cached code is run. Entries are
 * keyed by the source's content, so an edited agent is transpiled again. Without a usable folder, none.
 */
function agentCacheDir(env: NodeJS.ProcessEnv = process.env): string | false {
  const setting = env.FLOW_AGENT_CACHE;
  if (setting === "off" || setting === "0" || setting === "false") return false;
  return userCacheDir("agents", { env, ...(setting ? { dir: setting } : {}) }) ?? false;
}

/** What an extensionless import inside an agent folder may name, tried in this order. */
const AGENT_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

let importer: Importer | undefined;

/**
 * TypeScript agent files load without a build step (jiti). `@meshflow/runtime` and `@meshflow/core`
 * are aliased to the instances this process already runs, so an agent folder anywhere on disk shares
 * them (and `defineSpecialist` results are recognised).
 */
async function getImporter(): Promise<Importer> {
  if (importer) return importer;
  const { createJiti } = await import("jiti");
  const alias: Record<string, string> = {
    "@meshflow/core": fileURLToPath(import.meta.resolve("@meshflow/core")),
    // Built: the package's own entry (the module this process runs). From sources (tests): index.ts.
    "@meshflow/runtime": import.meta.url.endsWith(".ts")
      ? fileURLToPath(new URL("../index.ts", import.meta.url))
      : fileURLToPath(import.meta.resolve("@meshflow/runtime")),
  };
  const jiti = createJiti(import.meta.url, {
    alias,
    moduleCache: true,
    fsCache: agentCacheDir(),
    // Every extension is a file probed for each extensionless import in every folder searched: agents
    // are TypeScript or JavaScript ES modules, and four instead of jiti's nine load them ~1/3 faster.
    extensions: AGENT_EXTENSIONS,
  });
  importer = (file) => jiti.import(file, { default: true });
  return importer;
}

/**
 * Loads specialists from folders: `agents/<name>/agent.ts` (or `.mts`, `.js`, `.mjs`) whose default
 * export is a `defineSpecialist(...)` result named like its folder. Adding a specialist is adding a
 * folder. A path may also name one specialist folder or one agent file.
 */
export async function loadSpecialists(
  paths: readonly string[],
  options: LoadSpecialistsOptions = {},
): Promise<Map<string, LoadedSpecialist>> {
  const optional = new Set((options.optional ?? []).map((p) => resolve(p)));
  const found = new Map<string, LoadedSpecialist>();
  for (const path of paths) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) {
      if (optional.has(absolute)) continue;
      throw new MeshflowError("file_not_found", `${path}: specialist folder does not exist`, { details: { path } });
    }
    for (const file of entriesOf(absolute)) {
      const specialist = await importSpecialist(file);
      const folder = basename(dirname(file));
      if (basename(file).startsWith("agent.") && folder !== specialist.name && statSync(absolute).isDirectory())
        throw new MeshflowError(
          "specialist_invalid",
          `${file}: specialist "${specialist.name}" must live in a folder named "${specialist.name}", found "${folder}"`,
          { details: { file } },
        );
      const earlier = found.get(specialist.name);
      if (earlier)
        throw new MeshflowError(
          "specialist_invalid",
          `${file}: specialist "${specialist.name}" is already defined in ${earlier.file}`,
          { details: { file, other: earlier.file } },
        );
      found.set(specialist.name, { specialist, file });
    }
  }
  for (const path of options.builtin ?? []) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) continue;
    for (const file of entriesOf(absolute)) {
      if (found.has(basename(dirname(file)))) continue;
      const specialist = await importSpecialist(file, /\.m?js$/.test(file) ? nativeImport : undefined);
      if (!found.has(specialist.name)) found.set(specialist.name, { specialist, file });
    }
  }
  return found;
}

const nativeImport: Importer = async (file) =>
  ((await import(pathToFileURL(file).href)) as { default: unknown }).default;

async function importSpecialist(file: string, importer?: Importer): Promise<Specialist> {
  const load = importer ?? (await getImporter());
  let loaded: unknown;
  try {
    loaded = await load(file);
  } catch (cause) {
    if (isMeshflowError(cause)) throw new MeshflowError(cause.code, `${file}: ${cause.message}`, { cause });
    throw new MeshflowError("specialist_invalid", `${file}: cannot load: ${(cause as Error).message ?? cause}`, {
      cause,
      details: { file },
    });
  }
  if (!isSpecialist(loaded))
    throw new MeshflowError(
      "specialist_invalid",
      `${file}: the default export must be defineSpecialist({...}) from @meshflow/runtime`,
      { details: { file } },
    );
  return withInstructionsFile(loaded, join(dirname(file), INSTRUCTIONS_FILE));
}

/** The file beside `agent.ts` whose text is a specialist's model instructions when it declares none. */
export const INSTRUCTIONS_FILE = "instructions.md";

function withInstructionsFile(specialist: Specialist, file: string): Specialist {
  if (specialist.instructions || !existsSync(file)) return specialist;
  const instructions = readFileSync(file, "utf8").trim();
  // A spread keeps the brand (an own enumerable symbol), so the copy is still a specialist.
  return instructions ? Object.freeze({ ...specialist, instructions }) : specialist;
}
