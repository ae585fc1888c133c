import { loadPrdFile, loadRoutingTable, MeshflowError, type Prd, type RoutingTable } from "@meshflow/core";

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
  const [{ loadSpecialists }, { agentPaths }] = await Promise.all([
    import("@meshflow/runtime/host"),
    import("./runEnvironment.js"),
  ]);
  const paths = agentPaths(agents);
  return new Set((await loadSpecialists(paths.paths, paths)).keys());
}
