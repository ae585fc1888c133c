import { existsSync } from "node:fs";
import { loadPrdFile, loadRoutingTable, MeshflowError } from "@meshflow/core";
import { coverageSpecialists, prdServers } from "@meshflow/export";
import type { CoverageSpecialist, Skill, SpecialistInfo } from "@meshflow/resolver";
import { loadSpecialists, specialistInfo } from "@meshflow/runtime";
import { agentPaths } from "./runEnvironment.js";

/** Options deciding which specialists a coverage report covers, and their servers. */
export interface CoverageScopeOptions {
  prd?: string;
  routing?: string;
  agents?: string[] | string;
}

/** The specialists of a coverage report, and the folders their definitions came from. */
export interface CoverageScope {
  specialists: CoverageSpecialist[];
  agents: string[];
}

/**
 * The specialists `flow tools coverage` and `flow docs tools` report on, as runs see them: the routed
 * specialists (or a PRD's) with their loaded definitions (`--agents`, default ./agents) and skills.
 */
export async function coverageScope(
  options: CoverageScopeOptions,
  skills: readonly Skill[],
  configured: readonly string[],
): Promise<CoverageScope> {
  const routing = loadRoutingTable({ overrideFile: options.routing ?? process.env.FLOW_ROUTING });
  const { paths, optional } = agentPaths(options.agents);
  const loaded = await loadSpecialists(paths, { optional });
  const definitions = new Map<string, SpecialistInfo>(
    [...loaded].map(([name, { specialist }]) => [name, specialistInfo(specialist)]),
  );
  let byPrd: Map<string, string[]> | undefined;
  if (options.prd) {
    const prd = await loadPrdFile(options.prd, { routing });
    if (!prd.prd)
      throw new MeshflowError(
        "prd_invalid",
        `${options.prd}: invalid PRD (${prd.problems.length} problem(s)); run flow validate`,
      );
    byPrd = prdServers(prd.prd, routing);
  }
  return {
    specialists: coverageSpecialists({ routing, definitions, skills, configured, ...(byPrd ? { byPrd } : {}) }),
    agents: paths.filter((p) => existsSync(p)),
  };
}
