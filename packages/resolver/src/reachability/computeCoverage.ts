import type { ToolDescriptor } from "@meshflow/core";
import type { AliasEntry, AliasMap } from "../aliases/AliasMap.js";
import type { CapabilityIndex } from "../capabilities/CapabilityIndex.js";
import { computeRepertoireMap } from "../enrichers/computeRepertoire.js";
import type { SpecialistInfo, ToolEnricher } from "../enrichers/ToolEnricher.js";
import { createResolver, type Resolver } from "../resolve/createResolver.js";
import type { Skill } from "../skills/Skill.js";

/** A specialist and the MCP servers its steps use. */
export interface CoverageSpecialist {
  specialist: SpecialistInfo;
  servers: readonly string[];
}

/** Inputs of {@link computeCoverage}. */
export interface CoverageInput {
  /** Every discovered tool. */
  tools: readonly ToolDescriptor[];
  specialists: readonly CoverageSpecialist[];
  skills: readonly Skill[];
  index: CapabilityIndex;
  aliases?: AliasMap;
  /** Default: a resolver over `aliases` and `index`. */
  resolver?: Resolver;
  enrichers?: readonly ToolEnricher[];
  harness?: string;
}

/** A name of a specialist's own alias pack or tool list that does not resolve in its repertoire. */
export interface UnresolvedName {
  name: string;
  code: string;
  message: string;
}

/** One specialist's row of the coverage table. */
export interface SpecialistCoverage {
  name: string;
  servers: readonly string[];
  skills: readonly string[];
  /** Tools on its servers. */
  universe: number;
  /** Tools in its repertoire (after skills and enrichers): what it can call. */
  available: number;
  /** Distinct repertoire tools that one of its named tools or alias entries resolves to. */
  mapped: number;
  /** available − mapped: tools it can call only by their MCP names. */
  gap: number;
  /** The qualified names counted in `mapped`, in repertoire order (to deduplicate across specialists). */
  mappedTools: string[];
  unresolved: UnresolvedName[];
}

/** A tool no specialist can reach, and why. */
export interface UnreachableTool {
  qualifiedName: string;
  server: string;
  reason: string;
}

/** Which tools are reachable by at least one specialist, and per-specialist counts. */
export interface CoverageReport {
  tools: number;
  reachable: number;
  /** reachable / tools × 100 (100 when there are no tools). */
  percent: number;
  specialists: SpecialistCoverage[];
  servers: { server: string; tools: number; reachable: number }[];
  unreachable: UnreachableTool[];
  /** Alias entries whose target is no discovered tool at all (neither a qualified nor a bare name). */
  deadAliases: AliasEntry[];
}

/**
 * Computes coverage: each specialist's repertoire over its servers' tools (skills, enrichers, read-only),
 * how many of those its alias map and tool names reach, and every tool no specialist can reach.
 *
 * @example
 * const report = computeCoverage({ tools, specialists: [{ specialist: { name: "quality-agent" }, servers: ["everything"] }], skills, index });
 * report.percent; // 100 × reachable / tools
 */
export function computeCoverage(input: CoverageInput): CoverageReport {
  const resolver = input.resolver ?? createResolver({ aliases: input.aliases, capabilities: input.index });
  const byServer = new Map<string, ToolDescriptor[]>();
  for (const tool of input.tools) {
    const list = byServer.get(tool.server);
    if (list) list.push(tool);
    else byServer.set(tool.server, [tool]);
  }
  const reachable = new Set<string>();
  const usedBy = new Map<string, string[]>();
  const rows: SpecialistCoverage[] = input.specialists.map(({ specialist, servers }) => {
    const universe = servers.flatMap((server) => byServer.get(server) ?? []);
    for (const server of servers) usedBy.set(server, [...(usedBy.get(server) ?? []), specialist.name]);
    const map = computeRepertoireMap(universe, specialist, {
      skills: input.skills,
      index: input.index,
      ...(input.enrichers ? { enrichers: input.enrichers } : {}),
      ...(input.harness ? { harness: input.harness } : {}),
    });
    const repertoire = universe.filter((tool) => map.has(tool.qualifiedName));
    for (const tool of repertoire) reachable.add(tool.qualifiedName);
    // Its own names must resolve; shared entries count when they do (they may serve other specialists).
    const own = new Set([
      ...(specialist.tools ?? []),
      ...(input.aliases?.bySpecialist.get(specialist.name)?.keys() ?? []),
    ]);
    const names = new Set([...own, ...(input.aliases?.shared.keys() ?? [])]);
    const mapped = new Set<string>();
    const unresolved: UnresolvedName[] = [];
    for (const name of names) {
      const result = resolver.tryResolve(name, repertoire, { specialist: specialist.name });
      if ("qualifiedName" in result) mapped.add(result.qualifiedName);
      else if (own.has(name)) unresolved.push({ name, code: result.code, message: result.message });
    }
    return {
      name: specialist.name,
      servers,
      skills: specialist.skills ?? [],
      universe: universe.length,
      available: repertoire.length,
      mapped: mapped.size,
      gap: repertoire.length - mapped.size,
      mappedTools: repertoire.filter((t) => mapped.has(t.qualifiedName)).map((t) => t.qualifiedName),
      unresolved,
    };
  });
  const unreachable: UnreachableTool[] = [];
  for (const tool of input.tools) {
    if (reachable.has(tool.qualifiedName)) continue;
    const users = usedBy.get(tool.server);
    unreachable.push({
      qualifiedName: tool.qualifiedName,
      server: tool.server,
      reason: users
        ? `in no repertoire of ${[...new Set(users)].join(", ")} (left out by their skills or enrichers)`
        : `no specialist's steps use server "${tool.server}"`,
    });
  }
  const known = new Set(input.tools.flatMap((t) => [t.qualifiedName, t.name]));
  const aliasEntries = [
    ...(input.aliases?.shared.values() ?? []),
    ...[...(input.aliases?.bySpecialist.values() ?? [])].flatMap((m) => [...m.values()]),
  ];
  const deadAliases = aliasEntries
    .filter((entry) => !known.has(entry.to))
    .map(({ from, to, file, specialist }) => ({ from, to, file, ...(specialist ? { specialist } : {}) }));
  const servers = [...byServer].map(([server, tools]) => ({
    server,
    tools: tools.length,
    reachable: tools.filter((t) => reachable.has(t.qualifiedName)).length,
  }));
  const total = input.tools.length;
  return {
    tools: total,
    reachable: reachable.size,
    percent: total ? (reachable.size / total) * 100 : 100,
    specialists: rows,
    servers,
    unreachable,
    deadAliases,
  };
}
