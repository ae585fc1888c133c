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
