import { type Prd, type RoutingTable, routedSpecialists, stepKey } from "@meshflow/core";
import type { SpecialistInfo } from "../enrichers/ToolEnricher.js";
import { type Skill, withAttachedSkills } from "../skills/Skill.js";
import type { CoverageReport, CoverageSpecialist } from "./computeCoverage.js";

/** Specialist → the MCP servers its steps use in a PRD (routed by `routing`), in step order. */
export function prdServers(prd: Prd, routing: RoutingTable): Map<string, string[]> {
  const servers = new Map<string, string[]>();
  for (const story of prd.userStories)
    for (const step of story.mavenSteps) {
      const name = routing.steps.get(step);
      if (!name) continue;
      const list = servers.get(name) ?? [];
      for (const server of story.mcpTools[stepKey(step)] ?? []) if (!list.includes(server)) list.push(server);
      servers.set(name, list);
    }
  return servers;
}

/** What {@link coverageSpecialists} works from. */
export interface CoverageSpecialistsInput {
  routing: RoutingTable;
  /** The loaded specialist definitions (their data: skills, read-only, tool names). */
  definitions: ReadonlyMap<string, SpecialistInfo>;
  skills: readonly Skill[];
  /** Every configured server. */
  configured: readonly string[];
  /** From a PRD ({@link prdServers}): then only its specialists, each with its steps' servers. */
  byPrd?: ReadonlyMap<string, readonly string[]>;
}

/**
 * The specialists a coverage report is about, as runs see them: the routed specialists (or a PRD's), each
 * with its loaded definition's data when there is one and the runtime's skill rule (own skills, else the
 * skills that list it), and its servers (every configured one, or its steps' in the PRD).
 */
export function coverageSpecialists(input: CoverageSpecialistsInput): CoverageSpecialist[] {
  const names = input.byPrd ? [...input.byPrd.keys()] : routedSpecialists(input.routing);
  return names.map((name) => {
    const own = input.definitions.get(name);
    const info: SpecialistInfo = own ? { ...own, name } : { name };
    return {
      specialist: withAttachedSkills(info, input.skills),
      servers: [...(input.byPrd?.get(name) ?? input.configured)],
    };
  });
}

/** The first line of a coverage report, the same in `flow tools coverage` and `flow docs tools`. */
export function coverageHeadline(report: Pick<CoverageReport, "reachable" | "tools" | "percent">): string {
  return `Coverage: ${report.reachable} of ${report.tools} tools reachable by at least one specialist (${report.percent.toFixed(1)}%)`;
}
