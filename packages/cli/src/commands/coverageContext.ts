import { existsSync } from "node:fs";
import {
  type CoverageSpecialist,
  coverageSpecialists,
  prdServers,
  type Skill,
  type SpecialistInfo,
} from "@meshflow/resolver";
import { loadSpecialists, specialistInfo } from "@meshflow/runtime/host";
import { commandRouting, loadValidPrd } from "./prdInput.js";
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
  const routing = commandRouting(options);
  const agents = agentPaths(options.agents);
  const loaded = await loadSpecialists(agents.paths, agents);
  const definitions = new Map<string, SpecialistInfo>(
    [...loaded].map(([name, { specialist }]) => [name, specialistInfo(specialist)]),
  );
  let byPrd: Map<string, string[]> | undefined;
  if (options.prd) byPrd = prdServers(await loadValidPrd(options.prd, routing), routing);
  return {
    specialists: coverageSpecialists({ routing, definitions, skills, configured, ...(byPrd ? { byPrd } : {}) }),
    agents: [...agents.paths, ...agents.builtin].filter((p) => existsSync(p)),
  };
}
