import { loadPrdFile, loadRoutingTable, MeshflowError, type Prd, type RoutingTable } from "@meshflow/core";
import type { Specialist } from "@meshflow/runtime";

/** A command's routing table: the default with `--routing` (or FLOW_ROUTING) merged over it. */
export function commandRouting(options: { routing?: string | undefined }): RoutingTable {
  return loadRoutingTable({ overrideFile: options.routing ?? process.env.FLOW_ROUTING });
}

/** Loads a PRD a command needs whole; an invalid one is `prd_invalid`, naming the file and its problem count. */
export async function loadValidPrd(file: string, routing: RoutingTable): Promise<Prd> {
  const loaded = await loadPrdFile(file, { routing });
  if (!loaded.prd)
    throw new MeshflowError(
      "prd_invalid",
      `${file}: invalid PRD (${loaded.problems.length} problem(s)); run flow validate`,
    );
  return loaded.prd;
}

/**
 * The names of the specialists `flow run` would load with these `--agents` (the project's `./agents` over
 * the built-in ones by default), so `flow validate` and `flow plan` judge routing as the run will.
 */
export async function knownSpecialists(agents: string[] | string | undefined): Promise<ReadonlySet<string>> {
  return new Set((await loadedSpecialists(agents)).keys());
}

/** A specialist as a run would load it, and whether it needs the story's calls or a model for a step. */
export interface LoadedSpecialistFacts {
  needsPlan: boolean;
  specialist: Specialist;
}

/**
 * The specialists `flow run` would load with these `--agents`, each with whether it needs the story's
 * calls or a model for a step (`needs: "calls-or-model"`, or no think() of its own).
 */
export async function loadedSpecialists(
  agents: string[] | string | undefined,
): Promise<ReadonlyMap<string, LoadedSpecialistFacts>> {
  const [{ loadSpecialists }, { agentPaths }] = await Promise.all([
    import("@meshflow/runtime/host"),
    import("./runEnvironment.js"),
  ]);
  const paths = agentPaths(agents);
  const loaded = await loadSpecialists(paths.paths, paths);
  return new Map(
    [...loaded].map(([name, { specialist: s }]) => [
      name,
      { needsPlan: s.needs === "calls-or-model" || s.think === undefined, specialist: s },
    ]),
  );
}
